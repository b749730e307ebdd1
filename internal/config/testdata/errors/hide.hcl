sandbox "a" {
  workspace {
    hide = [
      "secrets/",
      "/secrets/",
      "//etc/shadow",  # ERROR: Invalid hide pattern
      "../outside",    # ERROR: Invalid hide pattern
      "config/[abc",   # ERROR: Invalid hide pattern
      "",              # ERROR: Invalid hide pattern
      "a//b",          # ERROR: Invalid hide pattern
      "**/private/**",
    ]
  }
}
