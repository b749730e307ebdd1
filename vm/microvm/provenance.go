package microvm

import "fmt"

// RootImage returns the host path of the base image sandbox id boots from
// (its copy-on-write disk's backing file), for provenance records.
func (b *Backend) RootImage(id string) (string, error) {
	c, err := b.loadConfig(id)
	if err != nil {
		return "", fmt.Errorf("root image of %s: %w", id, err)
	}
	return c.BaseImage, nil
}
