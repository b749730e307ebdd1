sandbox "a" {
  mount "cache" {
    source = "/var/cache/x"
    target = "/mnt/cache"
  }
  mount "cache" { # ERROR: Duplicate mount
    source = "/var/cache/y"
    target = "/mnt/cache2"
  }
  mount "other" {
    source = "/var/cache/z"
    target = "/mnt/cache" # ERROR: Duplicate mount target
  }
  mount "inside" {
    source = "/srv"
    target = "/workspace/vendor" # ERROR: Mount target overlaps the workspace
  }
}
