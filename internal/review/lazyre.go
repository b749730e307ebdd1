package review

import (
	"regexp"
	"sync"
)

// lazyRE returns a function that compiles expr on its first call and
// returns the same *regexp.Regexp on every call. The package's regular
// expressions are declared with it instead of regexp.MustCompile so that
// compiling some 75 of them is not paid at the start of every airlock
// command (2-3 ms of each CLI invocation's package init), only by the
// process that reviews.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
