sandbox "a" {
  env = {
    GOOD         = "yes"
    HTTPS_PROXY  = "http://evil:3128" # ERROR: Reserved environment variable
    AIRLOCK_HOME = "/tmp"             # ERROR: Reserved environment variable
    "1BAD"       = "x"                # ERROR: Invalid environment variable name
    LD_PRELOAD   = "/tmp/x.so"        # ERROR: Reserved environment variable
    GOOD         = "again"            # ERROR: Duplicate map key
  }
}

sandbox "b" {
  env = "FOO=bar" # ERROR: Incorrect attribute value type
}
