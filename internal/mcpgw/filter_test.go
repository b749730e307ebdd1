package mcpgw

import (
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestFilterAllowed(t *testing.T) {
	for _, tc := range []struct {
		name          string
		host, sandbox []string
		tool          string
		want          bool
	}{
		{"no lists: all", nil, nil, "echo", true},
		{"host list has it", []string{"echo"}, nil, "echo", true},
		{"host list lacks it", []string{"add"}, nil, "echo", false},
		{"sandbox narrows", nil, []string{"add"}, "echo", false},
		{"sandbox asks beyond host", []string{"add"}, []string{"add", "echo"}, "echo", false},
		{"both have it", []string{"add", "echo"}, []string{"echo"}, "echo", true},
		{"empty host list: none", []string{}, nil, "echo", false},
		{"empty sandbox list: none", nil, []string{}, "echo", false},
		{"invalid name never", nil, nil, "echo\n", false},
		{"empty name never", nil, nil, "", false},
		{"case matters", []string{"Echo"}, nil, "echo", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Filter{Host: tc.host, Sandbox: tc.sandbox}
			if got := f.Allowed(tc.tool); got != tc.want {
				t.Errorf("Allowed(%q) = %v, want %v", tc.tool, got, tc.want)
			}
		})
	}
}

func TestFilterTools(t *testing.T) {
	ts := []*mcp.Tool{{Name: "echo"}, nil, {Name: "add"}, {Name: "delete_everything"}}
	got := Filter{Host: []string{"echo", "add"}, Sandbox: []string{"add", "delete_everything"}}.Tools(ts)
	var names []string
	for _, t := range got {
		names = append(names, t.Name)
	}
	if !reflect.DeepEqual(names, []string{"add"}) {
		t.Errorf("tools = %v, want [add]", names)
	}
	if got := (Filter{Sandbox: []string{}}).Tools(ts); got == nil || len(got) != 0 {
		t.Errorf("empty sandbox list: %v, want none (and not nil)", got)
	}
}
