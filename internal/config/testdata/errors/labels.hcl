sandbox { # ERROR: Missing name for sandbox
}

sandbox "ok" {
  port { # ERROR: Missing name for port
    guest = 80
  }
  credential "a" "b" { # ERROR: Extraneous label for credential
    secret = "x"
    hosts  = ["example.com"]
  }
}
