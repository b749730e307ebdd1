sandbox "agents" {
  backend  = "namespace"
  template = "claude-base"
  network {
    preset = "locked-down"
  }
  agent "claude" {
    version = "2.1.3"
    args    = ["--model", "opus"]
  }
  agent "opencode" {}
  agent "codex" {
    secret = "work-openai-key"
  }
}
