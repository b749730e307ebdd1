variable "name" {
  default = "  Api  "
}

sandbox "fn" {
  image = replace(trimspace(lower(var.name)), "api", "debian-bookworm")
  env = merge({ A = "1" }, {
    B = title("hello")
    C = trimprefix("v1.2", "v")
    D = trimsuffix("file.txt", ".txt")
    E = tostring(length(split(",", "a,b,c")))
    F = coalesce("", "x")
    G = join(" ", distinct(["a", "a", "b"]))
    H = contains(["a"], "a") ? "yes" : "no"
    I = format("%d", max(1, 5, min(3, 9)))
  })
}
