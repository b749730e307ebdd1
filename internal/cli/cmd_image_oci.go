package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/airlock-sandbox/airlock/bridge"
	"github.com/airlock-sandbox/airlock/vm/kubernetes/ociimage"
	"github.com/airlock-sandbox/airlock/vm/microvm"
)

// `airlock image build --oci`: the microVM root image, plus airlock-agent,
// as the OCI image the kubernetes backend's pods run (kubernetes.hcl's
// image): written as an archive (`ctr images import`, `docker load`) or
// pushed to a registry.

type ociFlags struct {
	on        bool
	out, push string
	tag       string
}

func (o *ociFlags) add(fs *flag.FlagSet) {
	fs.BoolVar(&o.on, "oci", false, "make the OCI image of the root image (plus airlock-agent) for backend = \"kubernetes\"; with --out or --push")
	fs.StringVar(&o.out, "out", "", "with --oci: write an image archive here (ctr images import, docker load)")
	fs.StringVar(&o.push, "push", "", "with --oci: push to this REGISTRY/REPO:TAG (credentials from docker login)")
	fs.StringVar(&o.tag, "tag", "", "with --oci --out: the archive's image name (default airlock.local/NAME:latest)")
}

// unused refuses the OCI flags without --oci.
func (o *ociFlags) unused() error {
	if o.out != "" || o.push != "" || o.tag != "" {
		return Usagef("--out, --push and --tag go with --oci")
	}
	return nil
}

func runImageOCI(ctx context.Context, e *Env, opts microvm.ImageOptions, o ociFlags) error {
	if (o.out == "") == (o.push == "") {
		return Usagef("--oci wants one of --out FILE.tar or --push REGISTRY/REPO:TAG")
	}
	if o.push != "" && o.tag != "" {
		return Usagef("--tag names the archive's image; --push takes the name itself")
	}
	name := opts.Name
	if name == "" {
		name = microvm.DefaultImage
	}
	agent, err := bridge.FindAgentBinary()
	if err != nil {
		return fmt.Errorf("airlock-agent not found (next to airlock, on $PATH or $AIRLOCK_AGENT): %w", err)
	}
	img := microvm.ImagePath(e.Home(), name)
	if _, err := os.Stat(img); err == nil {
		fmt.Fprintf(e.Stderr, "using the root image %s (built earlier; remove it to rebuild)\n", img)
	} else {
		if img, err = microvm.BuildImage(ctx, e.Home(), opts, e.Stderr); err != nil {
			return err
		}
	}
	if o.push != "" {
		digest, err := ociimage.PushSandbox(ctx, img, agent, o.push)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "%s@%s\n", o.push, digest)
		return nil
	}
	tag := o.tag
	if tag == "" {
		tag = "airlock.local/" + name + ":latest"
	}
	out := o.out
	if !filepath.IsAbs(out) {
		out = filepath.Join(e.Dir, out)
	}
	if err := ociimage.WriteSandboxArchive(ctx, img, agent, tag, out); err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "%s %s\n", out, tag)
	return nil
}
