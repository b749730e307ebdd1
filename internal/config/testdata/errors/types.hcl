sandbox "a" {
  network {
    allow = "api.github.com" # ERROR: Incorrect attribute value type
    deny  = [["nested"]]      # ERROR: Incorrect attribute value type
  }
  port "p" {
    guest = "http" # ERROR: Incorrect attribute value type
  }
  workspace {
    mode = ["clone"] # ERROR: Incorrect attribute value type
  }
}
