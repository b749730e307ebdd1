sandbox "min" {
}
