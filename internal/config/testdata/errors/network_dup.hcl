sandbox "a" {
  network {
    allow = [
      "pypi.org",
      "PyPI.org",          # WARNING: Duplicate host pattern
      "files.pythonhosted.org:443",
    ]
    deny = ["8.8.8.8", "8.8.8.8"] # WARNING: Duplicate host pattern
  }
  network { # ERROR: Duplicate network block
  }
}
