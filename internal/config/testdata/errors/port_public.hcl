sandbox "a" {
  port "web" {
    guest = 8080
    bind  = "0.0.0.0" # WARNING: Port reachable from other machines
  }
  port "neg" {
    guest = 80
    host  = -1 # ERROR: Value out of range
  }
}
