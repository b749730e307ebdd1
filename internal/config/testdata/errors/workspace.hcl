sandbox "a" {
  workspace {
    mode   = "clon"      # ERROR: Invalid workspace mode
    target = "workspace" # ERROR: Invalid workspace target
  }
  workspace { # ERROR: Duplicate workspace block
  }
}

sandbox "b" {
  workspace {
    path   = "~/src/project" # ERROR: Home directory paths are not supported
    target = "/etc"          # ERROR: Reserved guest path
  }
}

sandbox "c" {
  workspace {
    path   = ""             # ERROR: Invalid workspace path
    target = "/work/../etc" # ERROR: Invalid workspace target
  }
}
