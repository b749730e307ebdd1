# ERROR: Missing sandbox block
variable "x" {
  default = "y"
}
