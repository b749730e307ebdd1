sandbox "a" {
  image = file("/etc/passwd") # ERROR: Call to unknown function
  user  = env("USER")         # ERROR: Call to unknown function
  env = {
    A = format("%99999999s", "x") # ERROR: Error in function call
    B = upper("ok")
    C = join(",", ["a", "b"])
  }
}
