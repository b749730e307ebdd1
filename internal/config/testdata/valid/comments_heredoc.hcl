// C-style comment
/* block comment */
sandbox "heredoc" {
  env = {
    MOTD = <<-EOT
      hello
      world
    EOT
  }
  network {
    allow = []
    deny  = []
  }
}
