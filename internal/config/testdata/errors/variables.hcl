variable "mem" {
  default = "4GiB"
}

variable "mem" { # ERROR: Duplicate variable
  default = "8GiB"
}

variable "required" { # ERROR: Missing variable value
  description = "must be given with -var"
}

variable "bad" {
  default = var.mem # ERROR: Variables not allowed
}

sandbox "a" {
  memory = var.mem
  image  = var.nope # ERROR: Unsupported attribute
}
