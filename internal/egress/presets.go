package egress

import (
	"fmt"
	"sort"
)

// Preset names.
const (
	PresetOpen       = "open"
	PresetBalanced   = "balanced"
	PresetLockedDown = "locked-down"
)

// presets are written out here and documented in `airlock policy ls`: what a
// coding agent needs to install packages, fetch code and reach model
// providers, and no more. Deliberately narrower than "all of a cloud
// provider": no **.amazonaws.com, **.googleapis.com, **.azure.com, CDNs or
// object stores beyond the registries' own download hosts.
var presets = map[string][]string{
	PresetOpen:       {"*"}, // every host; blocked address classes still apply
	PresetLockedDown: {},
	PresetBalanced: {
		// Package registries.
		"registry.npmjs.org", "registry.yarnpkg.com", "repo.yarnpkg.com",
		"pypi.org", "files.pythonhosted.org",
		"proxy.golang.org", "sum.golang.org", "index.golang.org",
		"crates.io", "static.crates.io", "index.crates.io", "static.rust-lang.org",
		"rubygems.org", "index.rubygems.org",
		"repo.maven.apache.org", "repo1.maven.org", "plugins.gradle.org", "services.gradle.org",
		"api.nuget.org", "repo.packagist.org", "repo.hex.pm", "pub.dev",
		"conda.anaconda.org", "repo.anaconda.com",
		"ghcr.io", "pkg-containers.githubusercontent.com",
		// Docker Hub (the private Docker engine's pulls).
		"registry-1.docker.io", "auth.docker.io", "index.docker.io", "production.cloudflare.docker.com",
		// Code hosts.
		"github.com", "api.github.com", "codeload.github.com", "uploads.github.com",
		"*.githubusercontent.com",
		"gitlab.com", "registry.gitlab.com",
		"bitbucket.org", "api.bitbucket.org",
		"codeberg.org", "git.sr.ht",
		// Model providers.
		"api.openai.com", "api.anthropic.com", "generativelanguage.googleapis.com",
		"api.mistral.ai", "api.cohere.com", "api.groq.com", "api.deepseek.com",
		"api.together.xyz", "openrouter.ai", "huggingface.co", "cdn-lfs.huggingface.co",
		// OS package mirrors.
		"deb.debian.org", "security.debian.org",
		"archive.ubuntu.com", "security.ubuntu.com", "ports.ubuntu.com",
		"dl-cdn.alpinelinux.org", "mirrors.fedoraproject.org", "dl.fedoraproject.org",
	},
}

// PresetNames lists the presets, sorted.
func PresetNames() []string {
	n := make([]string, 0, len(presets))
	for k := range presets {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// PresetRules returns the allow rules of a preset (config resolves an
// absent one to balanced).
func PresetRules(name string) ([]*Rule, error) {
	pats, ok := presets[name]
	if !ok {
		return nil, fmt.Errorf("unknown network preset %q (want open, balanced or locked-down)", name)
	}
	out := make([]*Rule, 0, len(pats))
	for _, p := range pats {
		r, err := ParsePattern(Allow, p, "preset "+name)
		if err != nil {
			panic("egress: bad preset pattern: " + err.Error())
		}
		r.preset = true
		out = append(out, r)
	}
	return out, nil
}
