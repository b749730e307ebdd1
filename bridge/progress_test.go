package bridge

import (
	"strings"
	"testing"
)

func TestProgressLines(t *testing.T) {
	var got []string
	p := &progressLines{notify: func(l string) { got = append(got, l) }}
	for _, w := range []string{"fetching guest kernel", " linux-image\n", "I: Retrieving Packages\r", "I: Validating\r\n\n", "mkfs.ext4 ", strings.Repeat("x", 5000)} {
		p.Write([]byte(w))
	}
	want := []string{"fetching guest kernel linux-image", "I: Retrieving Packages", "I: Validating"}
	if len(got) != 4 || strings.Join(got[:3], "|") != strings.Join(want, "|") || !strings.HasPrefix(got[3], "mkfs.ext4 x") {
		t.Fatalf("lines %q", got)
	}
}
