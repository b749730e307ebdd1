sandbox "a" {
  signer {
    key "k" {
      ref = "k"
    }
    policy "eth" {
      key         = "k"
      operations  = ["eth_signTransaction", "eth_sign"] # ERROR: Unknown signer operation
      chain_ids   = [1, 0]                              # ERROR: Value out of range
      to = [
        "0x1234",                                     # ERROR: Invalid address
        "0x000000000000000000000000000000000000DEAd", # ERROR: Invalid address
        "0x52908400098527886e0f7030069857d2e4169ee7",
      ]
      max_value   = "0.1 eth3r"                         # ERROR: Invalid amount
      daily_limit = "0.0000000000000000001 ether"       # ERROR: Invalid amount
      rate        = "10 per minute"                     # ERROR: Invalid rate
      approval    = "sometimes"                         # ERROR: Invalid approval
    }
    policy "jwt" {
      key          = "k"
      operations   = []            # ERROR: Missing operations
      claims       = ["sub", "$x"] # ERROR: Invalid claim name
      max_lifetime = "forever"     # ERROR: Invalid duration
    }
    policy "tok" {
      key        = "k"
      operations = ["eth_signTransaction"]
      token "0x1234" { # ERROR: Invalid token address
      }
      token "0x52908400098527886e0f7030069857d2e4169ee7" {
        symbol      = "U S D" # ERROR: Invalid token symbol
        decimals    = 6
        max_amount  = "1.0000001" # ERROR: Invalid token amount
        daily_limit = "-5"        # ERROR: Invalid token amount
      }
      token "0x52908400098527886E0F7030069857D2E4169EE7" { # ERROR: Duplicate token
        decimals = 100 # ERROR: Value out of range
      }
    }
  }
}
