sandbox "a" {
  network {
    preset = "balanced"
    allow  = ["api.github.com", "*.example.com", "uploads.github.com:443"]
    deny   = ["evil.example.com"]
  }
  credential "ok" {
    secret = "gh"
    hosts  = ["api.github.com", "www.example.com", "uploads.github.com:443"]
  }
  credential "bad" {
    secret = "gh2"
    hosts = [
      "github.com",          # ERROR: Credential host not allowed
      "evil.example.com",    # ERROR: Credential host not allowed
      "**.example.com",      # ERROR: Credential host not allowed
      "uploads.github.com",  # ERROR: Credential host not allowed
    ]
  }
}

sandbox "b" {
  network {
    preset = "open"
    deny   = ["**.tracker.example"]
  }
  credential "open" {
    secret = "token"
    hosts  = ["api.anything.example", "x.tracker.example"] # ERROR: Credential host not allowed
  }
}
