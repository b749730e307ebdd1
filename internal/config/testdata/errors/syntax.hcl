sandbox "a" {
  backend = "auto"
  cpus = = 2 # ERROR: Invalid expression
}
