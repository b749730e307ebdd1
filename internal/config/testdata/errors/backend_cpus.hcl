sandbox "a" {
  backend = "kvm" # ERROR: Invalid backend
  cpus    = 0     # ERROR: Value out of range
}

sandbox "b" {
  backend = "micro-vm" # ERROR: Invalid backend
  cpus    = 1.5        # ERROR: Value out of range
}

sandbox "c" {
  cpus = "two" # ERROR: Incorrect attribute value type
  user = "Root User" # ERROR: Invalid user
  image = "../../etc" # ERROR: Invalid image
}
