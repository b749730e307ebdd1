sandbox "a" {
  signer {
    key "k" {
      ref = "k"
    }
    policy "free" {
      key        = "k"
      operations = ["hmac"]
      approval   = "never" # WARNING: Unlimited automatic signing
    }
    policy "bounded" {
      key        = "k"
      operations = ["hmac"]
      approval   = "never"
      rate       = "5/minute"
    }
    policy "nokey" { # ERROR: Missing required argument
      operations = ["git"]
    }
  }
}
