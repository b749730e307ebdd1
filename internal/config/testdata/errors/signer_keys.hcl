sandbox "a" {
  signer {
    key "deployer" {
      ref = "deploy-key"
    }
    key "deployer" { # ERROR: Duplicate signer key
      ref = "other"
    }
    key "raw" {
      ref = "0x4c0883a69102937d6231471b5dbb6204fe512961708279f3c4f8d5a2b1a0c3d2 " # ERROR: Invalid key reference
    }
    policy "p" {
      key        = "deployr" # ERROR: Unknown signer key
      operations = ["personal_sign"]
    }
    policy "q" {
      key        = "deployer"
      operations = ["personal_sign"]
    }
    policy "q" { # ERROR: Duplicate policy
      key        = "deployer"
      operations = ["jwt"]
    }
  }
  signer { # ERROR: Duplicate signer block
  }
}
