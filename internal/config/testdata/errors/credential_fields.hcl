sandbox "a" {
  network {
    allow = ["api.example.com"]
  }
  env = {
    API_TOKEN = "placeholder"
  }
  credential "leak" {
    secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyz" # ERROR: Secret value in configuration
    hosts  = ["api.example.com"]
  }
  credential "name" {
    secret = "my token" # ERROR: Invalid secret name
    hosts  = ["api.example.com"]
    header = "Authorization"
    query  = "access_token" # ERROR: Conflicting arguments
  }
  credential "fmt" {
    secret = "t1"
    hosts  = ["api.example.com"]
    format = "Bearer %s %s" # ERROR: Invalid credential format
    header = "Host"         # ERROR: Invalid header name
    env    = "API_TOKEN"    # ERROR: Duplicate credential env
  }
  credential "env" {
    secret = "t2"
    hosts  = []              # ERROR: Missing credential hosts
    env    = "HTTPS_PROXY"   # ERROR: Reserved environment variable
    format = "token=%d"      # ERROR: Invalid credential format
  }
  credential "nohosts" { # ERROR: Missing required argument
    secret = "t3"
  }
}
