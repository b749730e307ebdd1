# Every block and attribute, with values other than the defaults.
variable "cpus" {
  default     = "4"
  description = "CPUs"
}

variable "team" {
  default = "Platform"
}

sandbox "full-1" {
  backend = "namespace"
  cpus    = var.cpus
  memory  = "1.5GiB"
  disk    = "20G"
  image   = "debian-bookworm"
  user    = "dev"
  env = {
    TEAM    = lower(var.team)
    GREETING = format("hello %s", upper(var.team))
    LIST    = join(",", concat(["a"], ["b", "c"]))
  }

  workspace {
    path    = "../project"
    mode    = "direct"
    target  = "/home/dev/project"
    hide    = ["secrets/", "**/*.tfstate", ".env"]
    protect = ["Makefile", ".github/workflows/"]
  }

  mount "cache" {
    source = "/var/cache/apt"
    target = "/mnt/apt"
  }

  mount "out" {
    source    = "build/out"
    target    = "/mnt/out"
    read_only = false
  }

  port "web" {
    guest = 3000
  }

  port "db" {
    guest = 5432
    host  = 15432
    bind  = "::1"
  }

  network {
    preset = "locked-down"
    allow = [
      "api.github.com",
      "*.s3.amazonaws.com",
      "**.googleapis.com",
      "registry.npmjs.org:443",
      "192.168.1.10",
      "[::1]:8080",
      "10.20.0.0/16",
    ]
    deny = ["evil.googleapis.com"]
  }

  credential "gh" {
    secret = "github-token"
    hosts  = ["api.github.com"]
    header = "Authorization"
    format = "Bearer %s"
    env    = "GITHUB_TOKEN"
  }

  credential "maps" {
    secret = "maps.key"
    hosts  = ["maps.googleapis.com", "*.googleapis.com"]
    query  = "key"
  }

  credential "reg" {
    secret = "npm-basic"
    hosts  = ["registry.npmjs.org:443"]
    format = "basic"
  }

  signer {
    key "deployer" {
      ref = "deployer"
    }
    key "ci" {
      ref = "ci-hmac"
    }

    policy "eth" {
      key         = "deployer"
      operations  = ["eth_signTransaction", "eth_signTypedData_v4", "personal_sign"]
      chain_ids   = [1, 11155111]
      to          = ["0x52908400098527886E0F7030069857D2E4169EE7", "0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae"]
      max_value   = "250 gwei"
      daily_limit = "1000000000000000000"
      rate        = "3/hour"
      approval    = "above_limit"
    }

    policy "tokens" {
      key          = "ci"
      operations   = ["jwt"]
      issuer       = "airlock"
      audience     = ["https://ci.example.com"]
      claims       = ["sub", "scope"]
      max_lifetime = "15m"
      approval     = "never"
      rate         = "60/minute"
    }

    policy "mac" {
      key        = "ci"
      operations = ["hmac", "sign", "git"]
      purposes   = ["webhook"]
    }
  }
}

sandbox "second" {
  workspace {
    mode = "mountless"
  }
  network {
    preset = "open"
    deny   = ["**.doubleclick.net"]
  }
  credential "any" {
    secret = "tok"
    hosts  = ["api.example.org"]
  }
}
