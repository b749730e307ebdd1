sandbox "a" {
  backnd = "auto" # ERROR: Unsupported argument
  workspce { # ERROR: Unsupported block type
  }
  network {
    prest = "open" # ERROR: Unsupported argument
  }
  mount "m" {
    source   = "/srv"
    target   = "/mnt/m"
    readonly = false # ERROR: Unsupported argument
  }
}

sandboxes "b" { # ERROR: Unsupported block type
}
