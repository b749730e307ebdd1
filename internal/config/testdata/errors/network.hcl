sandbox "a" {
  network {
    preset = "strict" # ERROR: Invalid network preset
    allow = [
      "api.github.com",
      "https://example.com/path", # ERROR: Invalid host pattern
      "*",                        # ERROR: Invalid host pattern
      "*.com",                    # ERROR: Invalid host pattern
      "api.*.example.com",        # ERROR: Invalid host pattern
      "example.com:99999",        # ERROR: Invalid host pattern
      "10.0.0.0/33",              # ERROR: Invalid host pattern
      "bad_-.example.com",        # ERROR: Invalid host pattern
    ]
  }
}
