sandbox "a" {
  workspace {
    mode = "direct"
    protect = [
      "Makefile",
      "../.ssh",         # ERROR: Invalid protect path
      "/.vscode/",
      "//home/me/.bashrc", # ERROR: Invalid protect path
    ]
    hide = "*.env" # ERROR: Incorrect attribute value type
  }
}
