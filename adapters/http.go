package adapters

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// httpAdapter resolves an HTTP server: any key but a github/ one whose
// entry has "url" (SPEC §5.6). With runCmd too, the command is run as a
// supervised child that serves url; envs then apply to it.
type httpAdapter struct{}

var _ Adapter = (*httpAdapter)(nil)

func (a *httpAdapter) Kind() string { return "http" }

func (a *httpAdapter) Claims(key string, e Entry) bool {
	return e.URL != nil && !strings.HasPrefix(key, "github/")
}

func (a *httpAdapter) Help() string {
	return `any name with {"url": "https://…/mcp", "headers": {…}} for a server reached over HTTP (with "runCmd" to start it too)`
}

func (a *httpAdapter) Resolve(_ string, e Entry) (LaunchSpec, []string, error) {
	secrets, err := checkURL(*e.URL)
	if err != nil {
		return LaunchSpec{}, nil, err
	}
	var errs []error
	if e.InstallCmd != nil {
		errs = append(errs, errors.New(`installCmd cannot be used with url: install the server in the template and start it with "runCmd"`))
	}
	if err := checkCommand("runCmd", e.RunCmd, false); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return LaunchSpec{}, nil, err
	}
	var warns []string
	for _, k := range slices.Sorted(maps.Keys(e.Props)) {
		warns = append(warns, fmt.Sprintf("unknown property %q ignored", k))
	}
	spec := LaunchSpec{URL: *e.URL, Headers: e.Headers}
	if e.RunCmd != nil {
		spec.Argv, spec.Env = []string{"/bin/sh", "-c", *e.RunCmd}, e.Envs
	} else if len(e.Envs) > 0 {
		warns = append(warns, `envs are ignored without runCmd: they are the environment of the command that serves url`)
	}
	for _, v := range e.Headers {
		secrets = append(secrets, v)
	}
	spec.Secrets = secrets
	return spec, warns, nil
}

// checkURL checks an HTTP server's url (SPEC §5.6): absolute, http or
// https, with a host. It returns the parts of it that are secrets: the
// password of its userinfo and its query values (hosted servers take API
// keys there). Messages never quote the URL, which may hold one.
func checkURL(raw string) (secrets []string, err error) {
	if strings.TrimSpace(raw) == "" {
		return nil, errors.New(`url is empty: want the server's MCP endpoint, such as "https://example.com/mcp"`)
	}
	if strings.ContainsFunc(raw, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, errors.New("url has control characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New(`url is not a valid URL: want the server's MCP endpoint, such as "https://example.com/mcp"`)
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		return nil, fmt.Errorf(`url must start with http:// or https://, not %q`, u.Scheme+":")
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, errors.New(`url has no host: want the server's MCP endpoint, such as "https://example.com/mcp"`)
	}
	if p, ok := u.User.Password(); ok && p != "" {
		secrets = append(secrets, p)
	}
	for _, vs := range u.Query() {
		for _, v := range vs {
			if v != "" {
				secrets = append(secrets, v)
			}
		}
	}
	return secrets, nil
}
