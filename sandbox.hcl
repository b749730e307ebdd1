sandbox "s3695" {
  backend = "namespace"
  workspace { mode = "direct" }
  network { preset = "locked-down" }
}
