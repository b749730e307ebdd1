package signer

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// permitTD is an EIP-2612 Permit; %V% is replaced by the value field's JSON.
const permitTD = `{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],
"Permit":[{"name":"owner","type":"address"},{"name":"spender","type":"address"},{"name":"value","type":"uint256"},{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"}]},
"primaryType":"Permit","domain":{"name":"USD Coin","version":"2","chainId":1,"verifyingContract":"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"},
"message":{"owner":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826","spender":"0x1111111254EEB25477B68fb85Ed929f73A960582","value":%V%,"nonce":0,"deadline":"1767225600"}}`

// oneField is typed data whose message is {"v": VALUE} of type TYPE.
func oneField(typ, value string) string {
	return `{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"}],"T":[{"name":"v","type":"` + typ + `"}]},
"primaryType":"T","domain":{"name":"x","chainId":1},"message":{"v":` + value + `}}`
}

// typedCorpus are the shapes compared with ethers, viem and eth-sig-util.
func typedCorpus() map[string]string {
	p := func(v string) string { return strings.Replace(permitTD, "%V%", v, 1) }
	c := map[string]string{
		"mail":                      mailTypedData,
		"permit decimal string":     p(`"1000000"`),
		"permit hex string":         p(`"0xf4240"`),
		"permit upper hex":          p(`"0xF4240"`),
		"permit json number":        p(`1000000`),
		"permit 1e6 number":         p(`1e6`),
		"permit max uint256":        p(`"115792089237316195423570985008687907853269984665640564039457584007913129639935"`),
		"permit uint256 overflow":   p(`"115792089237316195423570985008687907853269984665640564039457584007913129639936"`),
		"permit negative":           p(`"-1"`),
		"permit number above 2^53":  p(`9007199254740993`),
		"permit fraction":           p(`1.5`),
		"permit leading zeros":      p(`"007"`),
		"permit plus sign":          p(`"+7"`),
		"permit spaces":             p(`" 7"`),
		"permit 0X prefix":          p(`"0X10"`),
		"permit 0b":                 p(`"0b101"`),
		"permit 0o":                 p(`"0o17"`),
		"permit empty string":       p(`""`),
		"permit blank string":       p(`"  "`),
		"permit newline padded":     p(`"\n42\t"`),
		"permit nbsp padded":        p(`"\u00a042"`),
		"permit 0x only upper":      p(`"0X"`),
		"permit minus zero":         p(`"-0"`),
		"permit bad octal":          p(`"0o9"`),
		"permit empty hex":          p(`"0x"`),
		"permit bool":               p(`true`),
		"permit null":               p(`null`),
		"int8 -128":                 oneField("int8", `-128`),
		"int8 127":                  oneField("int8", `"127"`),
		"int8 128":                  oneField("int8", `128`),
		"int8 200":                  oneField("int8", `"200"`),
		"int8 -129":                 oneField("int8", `"-129"`),
		"int256 min":                oneField("int256", `"-57896044618658097711785492504343953926634992332820282019728792003956564819968"`),
		"int256 below min":          oneField("int256", `"-57896044618658097711785492504343953926634992332820282019728792003956564819969"`),
		"int256 max":                oneField("int256", `"57896044618658097711785492504343953926634992332820282019728792003956564819967"`),
		"int256 above max":          oneField("int256", `"57896044618658097711785492504343953926634992332820282019728792003956564819968"`),
		"uint8 256":                 oneField("uint8", `256`),
		"uint alias":                oneField("uint", `5`),
		"int negative hex":          oneField("int256", `"-0x5"`),
		"uint256[2] ok":             oneField("uint256[2]", `[1,2]`),
		"uint256[2] three":          oneField("uint256[2]", `[1,2,3]`),
		"uint256[2][] nested":       oneField("uint256[2][]", `[[1,2],[3,4]]`),
		"uint256[] empty":           oneField("uint256[]", `[]`),
		"bool true":                 oneField("bool", `true`),
		"bool string":               oneField("bool", `"true"`),
		"bool number":               oneField("bool", `1`),
		"address lower":             oneField("address", `"0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826"`),
		"address upper":             oneField("address", `"0xCD2A3D9F938E13CD947EC05ABC7FE734DF8DD826"`),
		"address bad checksum":      oneField("address", `"0xcD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"`),
		"address no 0x":             oneField("address", `"cd2a3d9f938e13cd947ec05abc7fe734df8dd826"`),
		"address short":             oneField("address", `"0xcd2a3d9f938e13cd947ec05abc7fe734df8dd8"`),
		"bytes32 ok":                oneField("bytes32", `"0x`+strings.Repeat("ab", 32)+`"`),
		"bytes32 short":             oneField("bytes32", `"0xab"`),
		"bytes4 upper":              oneField("bytes4", `"0xDEADBEEF"`),
		"bytes empty":               oneField("bytes", `"0x"`),
		"bytes odd":                 oneField("bytes", `"0x123"`),
		"bytes no 0x":               oneField("bytes", `"1234"`),
		"string unicode":            oneField("string", `"héllo ✓ 🚀"`),
		"string lone surrogate":     oneField("string", `"a\ud800b"`),
		"string pair escape":        oneField("string", `"\ud83d\ude80"`),
		"string number":             oneField("string", `5`),
		"string empty":              oneField("string", `""`),
		"string control chars":      oneField("string", `"a\u001b[8mb\r"`),
		"bytes0":                    oneField("bytes0", `"0x"`),
		"bytes33":                   oneField("bytes33", `"0x`+strings.Repeat("ab", 33)+`"`),
		"int7":                      oneField("int7", `1`),
		"extra message field":       strings.Replace(oneField("uint8", `1`), `"v":1`, `"v":1,"w":2`, 1),
		"missing message field":     strings.Replace(oneField("uint8", `1`), `"v":1`, `"w":1`, 1),
		"null struct":               strings.Replace(mailTypedData, `"to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"}`, `"to":null`, 1),
		"domain name empty":         strings.Replace(mailTypedData, `"name":"Ether Mail"`, `"name":""`, 1),
		"domain chainId string":     strings.Replace(mailTypedData, `"chainId":1`, `"chainId":"1"`, 1),
		"domain chainId hex":        strings.Replace(mailTypedData, `"chainId":1`, `"chainId":"0x1"`, 1),
		"domain non-canonical":      strings.Replace(mailTypedData, `[{"name":"name","type":"string"},{"name":"version","type":"string"},`, `[{"name":"version","type":"string"},{"name":"name","type":"string"},`, 1),
		"domain salt":               `{"types":{"EIP712Domain":[{"name":"chainId","type":"uint256"},{"name":"salt","type":"bytes32"}],"T":[{"name":"v","type":"uint8"}]},"primaryType":"T","domain":{"chainId":1,"salt":"0x` + strings.Repeat("12", 32) + `"},"message":{"v":1}}`,
		"domain undeclared field":   strings.Replace(mailTypedData, `"version":"1",`, `"version":"1","salt":"0x`+strings.Repeat("12", 32)+`",`, 1),
		"domain declared not given": strings.Replace(mailTypedData, `"version":"1",`, ``, 1),
		"primaryType not root": strings.Replace(strings.Replace(mailTypedData, `"primaryType":"Mail"`, `"primaryType":"Person"`, 1), `"message":{"from":{"name":"Cow","wallet":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
"to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},"contents":"Hello, Bob!"}`, `"message":{"name":"Cow","wallet":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"}`, 1),
		"unused type":           strings.Replace(mailTypedData, `"Person":[`, `"Unused":[{"name":"x","type":"uint8"}],"Person":[`, 1),
		"lowercase struct name": strings.ReplaceAll(strings.ReplaceAll(mailTypedData, `"Person"`, `"person"`), `"type":"Person"`, `"type":"person"`),
		"recursive type":        `{"types":{"EIP712Domain":[{"name":"chainId","type":"uint256"}],"Node":[{"name":"v","type":"uint8"},{"name":"kids","type":"Node[]"}]},"primaryType":"Node","domain":{"chainId":1},"message":{"v":1,"kids":[{"v":2,"kids":[]}]}}`,
		"array of structs":      `{"types":{"EIP712Domain":[{"name":"chainId","type":"uint256"}],"P":[{"name":"a","type":"address"}],"T":[{"name":"ps","type":"P[]"}]},"primaryType":"T","domain":{"chainId":1},"message":{"ps":[{"a":"0x1111111111111111111111111111111111111111"},{"a":"0x2222222222222222222222222222222222222222"}]}}`,
		"empty struct type":     `{"types":{"EIP712Domain":[{"name":"chainId","type":"uint256"}],"E":[],"T":[{"name":"e","type":"E"}]},"primaryType":"T","domain":{"chainId":1},"message":{"e":{}}}`,
	}
	return c
}

// refusedByDesign are shapes every reference hashes identically that the
// signer still refuses, with the reason.
var refusedByDesign = map[string]string{
	"permit blank string": "a blank string is not a number (BigInt reads it as 0; ethers refuses the empty string)",
}

// TestTypedDataDifferential: for every shape, what the signer accepts the
// references hash to the same digest (none disagrees), and what all three
// accept identically the signer accepts (except refusedByDesign).
func TestTypedDataDifferential(t *testing.T) {
	dir := nodeCheckers(t)
	corpus := typedCorpus()
	names := make([]string, 0, len(corpus))
	type item struct {
		Name string `json:"name"`
		JSON string `json:"json"`
	}
	var items []item
	for n, j := range corpus {
		names = append(names, n)
		items = append(items, item{n, j})
	}
	sort.Strings(names)
	in := filepath.Join(t.TempDir(), "cases.json")
	b, _ := json.Marshal(items)
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("node", filepath.Join(dir, "typed.mjs"), in).Output()
	if err != nil {
		t.Fatalf("typed.mjs: %v", err)
	}
	var refs map[string]map[string]string
	if err := json.Unmarshal(out, &refs); err != nil {
		t.Fatalf("typed.mjs output: %v\n%s", err, out)
	}
	accepted := 0
	for _, n := range names {
		r := refs[n]
		td, gerr := parseTypedData([]byte(corpus[n]))
		ours := "error: " + errString(gerr)
		if gerr == nil {
			ours = "0x" + hex.EncodeToString(td.digest)
			accepted++
		}
		agree := true
		for _, lib := range []string{"ethers", "viem", "sigutil"} {
			agree = agree && r[lib] == r["ethers"] && !strings.HasPrefix(r[lib], "error")
		}
		t.Logf("%-26s go=%.20s ethers=%.40s viem=%.40s sigutil=%.40s", n, ours, r["ethers"], r["viem"], r["sigutil"])
		switch {
		case gerr == nil:
			k := 0
			for _, lib := range []string{"ethers", "viem", "sigutil"} {
				if !strings.HasPrefix(r[lib], "error") {
					k++
					if r[lib] != ours {
						t.Errorf("%s: signer digest %s, %s says %s", n, ours, lib, r[lib])
					}
				}
			}
			if k < 2 {
				t.Errorf("%s: the signer accepts what only %d reference accepts", n, k)
			}
		case agree && refusedByDesign[n] == "":
			t.Errorf("%s: ethers, viem and eth-sig-util agree on %s; the signer refuses: %v", n, r["ethers"], gerr)
		}
	}
	if accepted < 20 {
		t.Errorf("only %d shapes accepted", accepted)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
