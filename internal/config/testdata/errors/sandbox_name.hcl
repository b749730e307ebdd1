sandbox "Bad_Name" { # ERROR: Invalid sandbox name
}

sandbox "-leading" { # ERROR: Invalid sandbox name
}

sandbox "dup" {
}

sandbox "dup" { # ERROR: Duplicate sandbox
}
