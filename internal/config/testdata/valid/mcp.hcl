sandbox "tools" {
  mcp "github" {
    tools = ["search_issues", "get_file_contents"]
  }
  mcp "files" {
  }
  mcp "nothing" {
    tools = []
  }
  skills {
    writable = true
  }
}
