package microvm

import (
	"context"
	"os"
	"testing"
)

func TestPrepAssets(t *testing.T) {
	if os.Getenv("AIRLOCK_PREP") == "" {
		t.Skip()
	}
	home := testHome(t)
	k, err := EnsureKernel(context.Background(), home+"/cache", os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", k)
	p, err := BuildImage(context.Background(), home, ImageOptions{Name: "test", Packages: []string{"git"}}, os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(p)
}
