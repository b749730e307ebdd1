sandbox "a" {
  port "web" {
    guest = 8080
  }
  port "web" { # ERROR: Duplicate port
    guest = 8081
  }
  port "api" {
    guest = 9000
    host  = 8080 # ERROR: Duplicate host port
  }
  port "big" {
    guest = 70000 # ERROR: Value out of range
  }
  port "bind" {
    guest = 3000
    bind  = "localhost" # ERROR: Invalid bind address
  }
  port "nog" { # ERROR: Missing required argument
    host = 1234
  }
}
