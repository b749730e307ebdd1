package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/airlock-sandbox/airlock/vm/microvm"
)

// `airlock image build`: the microVM root images.

func init() {
	Register(&Command{
		Name:    "image",
		Usage:   "image build [--node] [--docker] [NAME] | image build --oci (--out FILE.tar | --push REGISTRY/REPO:TAG) [--tag REF] [NAME] | image kernel",
		Summary: "build the microVM root image (Debian bookworm), or it as an OCI image for backend = \"kubernetes\"; or fetch the guest kernel",
		Run:     runImage,
	})
}

func runImage(e *Env, args []string) error {
	if len(args) == 0 {
		return Usagef("missing subcommand (build or kernel)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	switch args[0] {
	case "build":
		fs := newFlags("image build", e)
		node := fs.Bool("node", false, "add nodejs and npm")
		minimal := fs.Bool("minimal", false, "only minbase + git (small; what the tests use)")
		docker := fs.Bool("docker", false, "add a private Docker engine (docker.io; for docker = true; the default name is "+microvm.DockerImage+")")
		var oci ociFlags
		oci.add(fs)
		if err := fs.Parse(args[1:]); err != nil {
			return Usagef("%v", err)
		}
		if fs.NArg() > 1 {
			return Usagef("at most one image name")
		}
		opts := microvm.ImageOptions{Name: fs.Arg(0), Packages: microvm.DefaultPackages, Node: *node, Docker: *docker}
		if *docker && opts.Name == "" {
			opts.Name = microvm.DockerImage
		}
		if *minimal {
			opts.Packages = []string{"git"}
		}
		if oci.on {
			return runImageOCI(ctx, e, opts, oci)
		}
		if err := oci.unused(); err != nil {
			return err
		}
		if _, err := microvm.EnsureKernel(ctx, e.Home()+"/cache", e.Stderr); err != nil {
			return err
		}
		p, err := microvm.BuildImage(ctx, e.Home(), opts, e.Stderr)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.Stdout, p)
		return nil
	case "kernel":
		k, err := microvm.EnsureKernel(ctx, e.Home()+"/cache", e.Stderr)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "%s %s\n", k.Version, k.Vmlinux)
		return nil
	}
	return Usagef("unknown subcommand %q", args[0])
}
