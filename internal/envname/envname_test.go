package envname

import "testing"

func TestCheck(t *testing.T) {
	for name, ok := range map[string]bool{
		"A": true, "_x1": true, "PATH_2": true,
		"": false, "1A": false, "A-B": false, "A B": false, "A=B": false, "É": false,
	} {
		if err := Check(name); (err == nil) != ok {
			t.Errorf("Check(%q) = %v, want ok=%v", name, err, ok)
		}
	}
	if got, want := Check("a-b").Error(), `variable name "a-b" must match [A-Za-z_][A-Za-z0-9_]*`; got != want {
		t.Errorf("Check: %q, want %q", got, want)
	}
}
