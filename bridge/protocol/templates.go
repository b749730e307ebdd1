package protocol

import "time"

// Template methods (feature "templates"; bridge/templates.go).
const (
	MethodTemplateSave   = "template.save"   // TemplateSaveParams → TemplateInfo
	MethodTemplateList   = "template.list"   // {} → TemplateListResult
	MethodTemplateRemove = "template.remove" // TemplateParams → {}
)

// TemplateSaveParams saves sandbox Name's home as template Template.
type TemplateSaveParams struct {
	Name     string `json:"name"`
	Template string `json:"template"`
}

// TemplateParams names a template.
type TemplateParams struct {
	Template string `json:"template"`
}

// TemplateInfo describes a saved template.
type TemplateInfo struct {
	Name     string    `json:"name"`
	Created  time.Time `json:"created"`
	Sandbox  string    `json:"sandbox"` // saved from
	Backend  string    `json:"backend"`
	Entries  int       `json:"entries"`
	Bytes    int64     `json:"bytes"`
	Excluded []string  `json:"excluded"` // paths left out (credentials, hidden files, caches)
	// DiskBytes is the size of the microVM root disk saved with the home
	// (packages, /etc, the Docker engine's data); 0 = the home alone.
	DiskBytes int64 `json:"disk_bytes,omitempty"`
}

// TemplateListResult lists the saved templates.
type TemplateListResult struct {
	Templates []TemplateInfo `json:"templates"`
}
