variable "n" {
  default = "1e9999999"
}

sandbox "a" {
  image = "${1e9999999}"                # ERROR: Number out of range
  cpus  = 1 + 1                         # ERROR: Unsupported operator
  user  = -var.n                        # ERROR: Unsupported operator
  env = {
    C = join(",", [for x in ["a"] : x]) # ERROR: Unsupported expression
    D = "${0.0000000000000000000001}"   # ERROR: Number out of range
  }
}
