package review

import "testing"

const conftestBase = `import pytest


@pytest.fixture
def db(tmp_path):
    return tmp_path / "db"
`

// A conftest.py change test discovery runs is high; one only fixture
// bodies hold is not (round6 benign/012), and every way out of a body
// that runs at import is caught.
func TestConftestLazyChange(t *testing.T) {
	for _, c := range []struct {
		name, add string
		lazy      bool
	}{
		{"new fixture", `

@pytest.fixture(scope="session")
def api(db) -> Iterator[str]:
    """A client.

def x():
"""
    import subprocess
    yield subprocess.run(["true"])
`, true},
		{"hook body", `

def pytest_configure(config):
    import os
    os.system("id")
`, false},
		{"called at import", `
def helper():
    import os; os.system("id")

helper()
`, false},
		{"string hides a def", `
if True:
    s = """
def a():
    x""" ; __import__("os").system("id")
`, false},
		{"default argument", `

def late(x=__import__("os").system("id")):
    pass
`, false},
		{"dunder method", `

class Reg:
    def __init_subclass__(cls):
        __import__("os").system("id")
`, false},
		{"module level", "\nimport os\nos.system('id')\n", false},
		{"plugins by name", "\npytest_plugins = \"tests.evil\"\n", false},
		{"module getattr", "\ndef helper(name):\n    __import__('os').system('id')\n\n__getattr__ = helper\n", false},
		{"parametrize ids", "\ndef make_id(v):\n    __import__('os').system('id')\n\n@pytest.mark.parametrize('v', [1, 2], ids=make_id)\ndef test_v(v): assert v\n", false},
		{"one-line test and a class", "\nLIMIT = 3\npytestmark = pytest.mark.slow\n\nclass TestSlug:\n    def test_a(self): assert slugify(\"A B\") == \"a-b\"\n", true},
		{"metaclass init", "\nclass M(type):\n    def __init__(cls, *a):\n        __import__('os').system('id')\n", false},
		{"descriptor", "\nclass D:\n    def __get__(self, o, t=None):\n        __import__('os').system('id')\n", false},
		{"instance made at import", "\nclass Client:\n    def __init__(self):\n        __import__('os').system('id')\n\nCLIENT = Client()\n", false},
		{"docstring and main guard", "\n\"\"\"More tests.\"\"\"\n\nif __name__ == \"__main__\":\n    __import__('os').system('id')\n", true},
		{"one-line body default", "\ndef test_b(x=os.getcwd()): assert x\n", false},
		{"decorator call", "\n@register(os.system('id'))\ndef f():\n    pass\n", false},
		{"continued signature", "\n\ndef f(a,\n      b=os.system('id')):\n    pass\n", false},
	} {
		f := mod("tests/conftest.py", conftestBase, conftestBase+c.add)
		if got := pyLazyChange(f.Old, f.New); got != c.lazy {
			t.Errorf("%s: lazy %v, want %v", c.name, got, c.lazy)
		}
		reps := ScanWith(Rules(), []*File{f}, nil)
		high := false
		for _, r := range reps {
			for _, fd := range r.Findings {
				if fd.Rule == "IDE-AUTOBUILD" || fd.Rule == "AUTORUN-TARGET" {
					high = true
				}
			}
		}
		if high == c.lazy {
			t.Errorf("%s: IDE-AUTOBUILD/AUTORUN-TARGET %v, want %v", c.name, high, !c.lazy)
		}
	}
}

// A mix.exs change that only moves dependency versions is not code; a
// dependency's compile command or git source is.
func TestMixDepsOnly(t *testing.T) {
	old := "defp deps do\n  [\n    {:jason, \"~> 1.3\"},\n  ]\nend\n"
	for cur, want := range map[string]bool{
		"defp deps do\n  [\n    {:jason, \"~> 1.4\"},\n    {:credo, \"~> 1.7\", only: [:dev, :test], runtime: false},\n  ]\nend\n": true,
		"defp deps do\n  [\n    {:jason, \"~> 1.3\", compile: \"sh x\"},\n  ]\nend\n":                                              false,
		"defp deps do\n  [\n    {:jason, git: \"https://x.example/jason\"},\n  ]\nend\n":                                           false,
		"defp deps do\n  System.cmd(\"sh\", [\"x\"])\n  [\n    {:jason, \"~> 1.3\"},\n  ]\nend\n":                                  false,
	} {
		if got := mixDepsOnly(mod("mix.exs", old, cur)); got != want {
			t.Errorf("mixDepsOnly(%q) = %v, want %v", cur, got, want)
		}
	}
}

func FuzzPyLogicalLines(f *testing.F) {
	f.Add([]byte(conftestBase + "def f(a,\n  b=1):\n    '''x\n'''\n    return 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pyLogicalLines(b)
		pyLazyChange([]byte(conftestBase), b)
	})
}
