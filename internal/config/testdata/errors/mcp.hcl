sandbox "a" {
  mcp "bad name" { # ERROR: Invalid mcp server name
  }
  mcp "gh" {
    tools = ["ok", "no spaces"] # ERROR: Invalid tool name
  }
  mcp "gh" { # ERROR: Duplicate mcp server
  }
  mcp "x" {
    tools   = ["a", "a"] # ERROR: Duplicate tool
    command = ["/bin/sh"] # ERROR: Unsupported argument
  }
  mcp "y" {
    tools = "all" # ERROR: Incorrect attribute value type
  }
  skills {
    writable = "yes please" # ERROR: Incorrect attribute value type
    path     = "/etc" # ERROR: Unsupported argument
  }
  skills { # ERROR: Duplicate skills block
  }
}
