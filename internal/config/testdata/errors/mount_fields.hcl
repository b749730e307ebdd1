sandbox "a" {
  mount "home" {
    source = "~/.config" # ERROR: Home directory paths are not supported
    target = "/mnt/config"
  }
  mount "proc" {
    source    = "/srv"
    target    = "/proc/self" # ERROR: Reserved guest path
    read_only = "yes please" # ERROR: Incorrect attribute value type
  }
  mount "nosource" { # ERROR: Missing required argument
    target = "/mnt/x"
  }
  mount "bad name!" { # ERROR: Invalid mount name
    source = "/srv"
    target = "/mnt/y"
  }
  mount "rel" {
    source = "data"
    target = "relative/target" # ERROR: Invalid mount target
  }
}
