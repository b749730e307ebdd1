sandbox "a" {
  agent "nosuch" { # ERROR: Unknown agent
  }
  agent "claude" {
    version = "^2.0 || rm -rf /" # ERROR: Invalid agent version
    args    = "--verbose"        # ERROR: Incorrect attribute value type
    secret  = "sk-ant-api03-abcdefghijklmnop" # ERROR: Invalid secret name
    model   = "opus" # ERROR: Unsupported argument
  }
  agent "claude" { # ERROR: Duplicate agent
  }
}

sandbox "b" {
  backend = "namespace"
  docker  = true # ERROR: Docker needs the microVM backend
  network {
    deny = ["api.openai.com"]
  }
  agent "codex" { # ERROR: Agent host denied
  }
}

sandbox "c" {
  template = "Not A Name" # ERROR: Invalid template name
  env = {
    GEMINI_API_KEY = "AIzaSyExample"
  }
  agent "gemini" { # ERROR: Agent key in env
  }
}
