variable "n" {
  default = "1e9999999"
}

sandbox "a" {
  env = {
    A = format("%d", var.n)                         # ERROR: Error in function call
    B = tostring(tonumber(var.n))                   # ERROR: Error in function call
    C = tostring(max(var.n, 1))                     # ERROR: Error in function call
    D = format("%0999999d", 1)                      # ERROR: Error in function call
    E = replace(replace("aaaaaaaaaaaaaaaa", "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), "a", "aaaaaaaaaaaaaaaa") # ERROR: Error in function call
    F = lower(var.n)
  }
}
