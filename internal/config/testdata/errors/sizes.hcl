sandbox "a" {
  memory = "2 gigs" # ERROR: Invalid size
  disk   = 10       # ERROR: Invalid size
}

sandbox "b" {
  memory = "64MiB" # ERROR: Value out of range
  disk   = "512MiB" # ERROR: Value out of range
}

sandbox "c" {
  memory = "4TiB" # ERROR: Value out of range
}
