sandbox "a" {
  network {
    preset = "locked-down"
    allow = [
      "api.github.com",
      "registry.npmjs.org",
      "10.1.2.3",
      "**.corp.example",
    ]
    deny = [
      "API.GitHub.com",   # ERROR: Host both allowed and denied
      "**.npmjs.org",     # ERROR: Host both allowed and denied
      "10.0.0.0/8",       # ERROR: Host both allowed and denied
      "secret.corp.example",
    ]
  }
}
