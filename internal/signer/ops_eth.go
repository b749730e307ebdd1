package signer

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// decoder turns one method's params into an Op, validating everything that
// can be validated before policy.
type decoder func(s *Service, c *Caller, params json.RawMessage) (*Op, error)

var decoders = map[string]decoder{
	"eth_signTransaction":  decodeTx,
	"personal_sign":        decodePersonal,
	"eth_signTypedData_v4": decodeTyped,
	"airlock_signJWT":      decodeJWT,
	"airlock_hmac":         decodeHMAC,
	"airlock_sign":         decodeSign,
	"airlock_gitSign":      decodeGit,
	"eth_sign": func(*Service, *Caller, json.RawMessage) (*Op, error) {
		return nil, refusef(CodeUnsupported, "eth_sign signs a bare hash and is not offered; use personal_sign or eth_signTypedData_v4")
	},
	"eth_sendTransaction": func(*Service, *Caller, json.RawMessage) (*Op, error) {
		return nil, refusef(CodeUnsupported, "this endpoint signs only; use eth_signTransaction and broadcast the result yourself")
	},
}

var ethOps = []string{"eth_signTransaction", "personal_sign", "eth_signTypedData_v4"}

// accounts lists the addresses of secp256k1 keys some policy allows an
// Ethereum operation with, in policy order.
func (c *Caller) accounts() []string {
	out := []string{}
	seen := map[string]bool{}
	for _, p := range c.policies {
		pi, ok := c.keys[p.key]
		if !ok || pi.Type != Secp256k1 || seen[pi.Address] {
			continue
		}
		for _, o := range ethOps {
			if p.ops[o] {
				seen[pi.Address] = true
				out = append(out, strings.ToLower(pi.Address))
				break
			}
		}
	}
	return out
}

// chainID is the first chain of the first policy allowing an Ethereum
// operation.
func (c *Caller) chainID() (string, error) {
	for _, p := range c.policies {
		for _, o := range ethOps {
			if p.ops[o] && len(p.chainList) > 0 {
				return hexutil.EncodeBig(p.chainList[0]), nil
			}
		}
	}
	return "", refusef(CodeUnauthorized, "no policy allows an Ethereum operation on any chain")
}

// byAddress finds the sandbox key with address addr.
func (c *Caller) byAddress(addr string) (name string, err error) {
	m := common.NewMixedcaseAddress(common.Address{})
	if err := m.UnmarshalJSON([]byte(`"` + addr + `"`)); err != nil || !common.IsHexAddress(addr) {
		return "", refusef(CodeInvalidParams, "invalid address %q", addr)
	}
	if addr != strings.ToLower(addr) && addr[2:] != strings.ToUpper(addr[2:]) && !m.ValidChecksum() {
		return "", refusef(CodeInvalidParams, "address %q has a bad EIP-55 checksum", addr)
	}
	want := m.Address().Hex()
	for n, pi := range c.keys {
		if pi.Type == Secp256k1 && pi.Address == want {
			return n, nil
		}
	}
	return "", refusef(CodeUnauthorized, "unknown account %s", want)
}

// Refusals from decoding.
var (
	ErrZeroAddress   = &Refusal{CodeInvalidParams, "recipient is the zero address"}
	ErrAmbiguousData = &Refusal{CodeInvalidParams, "both data and input given and they differ"}
	ErrCreateValue   = &Refusal{CodeInvalidParams, "contract creation with value and no code"}
	ErrCreateNoCode  = &Refusal{CodeInvalidParams, "contract creation without code"}
	ErrNoChainID     = &Refusal{CodeInvalidParams, "chainId is required (pre-EIP-155 transactions are not signed)"}
	ErrFeeFields     = &Refusal{CodeInvalidParams, "fee fields do not match the transaction type"}
	ErrTxType        = &Refusal{CodeInvalidParams, "unsupported transaction type (legacy, 0x1 and 0x2 only)"}
	ErrMissingField  = &Refusal{CodeInvalidParams, "nonce, gas and fee fields are required"}
	ErrTypedNoChain  = &Refusal{CodeInvalidParams, "typed data domain has no chainId"}
)

// txArgs is the eth_signTransaction object. Unknown fields are refused: a
// field this signer does not understand could change what is signed.
type txArgs struct {
	From                 string            `json:"from"`
	To                   *string           `json:"to"`
	Gas                  *hexutil.Uint64   `json:"gas"`
	GasPrice             *hexutil.Big      `json:"gasPrice"`
	MaxFeePerGas         *hexutil.Big      `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *hexutil.Big      `json:"maxPriorityFeePerGas"`
	Value                *hexutil.Big      `json:"value"`
	Nonce                *hexutil.Uint64   `json:"nonce"`
	Data                 *hexutil.Bytes    `json:"data"`
	Input                *hexutil.Bytes    `json:"input"`
	AccessList           *types.AccessList `json:"accessList"`
	ChainID              *hexutil.Big      `json:"chainId"`
	Type                 *hexutil.Uint64   `json:"type"`
}

func oneParam(params json.RawMessage, n int) ([]json.RawMessage, error) {
	var ps []json.RawMessage
	if err := json.Unmarshal(params, &ps); err != nil || len(ps) < n {
		return nil, refusef(CodeInvalidParams, "want %d positional params", n)
	}
	return ps, nil
}

func decodeTx(s *Service, c *Caller, params json.RawMessage) (*Op, error) {
	ps, err := oneParam(params, 1)
	if err != nil {
		return nil, err
	}
	var a txArgs
	if err := strictUnmarshal(ps[0], &a, "invalid transaction object"); err != nil {
		return nil, err
	}
	keyName, err := c.byAddress(a.From)
	if err != nil {
		return nil, err
	}
	data, err := a.calldata()
	if err != nil {
		return nil, err
	}
	value := new(big.Int)
	if a.Value != nil {
		value = a.Value.ToInt()
	}
	if value.Sign() < 0 {
		return nil, refusef(CodeInvalidParams, "negative value")
	}
	to, err := a.recipient(data, value)
	if err != nil {
		return nil, err
	}
	if a.ChainID == nil || a.ChainID.ToInt().Sign() <= 0 {
		return nil, ErrNoChainID
	}
	chainID := a.ChainID.ToInt()
	if a.Nonce == nil || a.Gas == nil || *a.Gas == 0 {
		return nil, ErrMissingField
	}
	typ := a.txType()
	txd, err := a.txData(typ, chainID, to, value, data)
	if err != nil {
		return nil, err
	}
	tx := types.NewTx(txd)
	signer := types.NewLondonSigner(chainID)
	sighash := signer.Hash(tx)

	op := &Op{keyRef: c.refs[keyName], keyType: Secp256k1, amount: value, chainID: chainID}
	op.Operation = "eth_signTransaction"
	op.Key = keyName
	op.From = c.keys[keyName].Address
	describeTx(op, &a, typ, to, data)
	if to != nil {
		op.Moves = rankMoves(decodeCalldata(*to, data, 0))
		c.showAmounts(op.Moves)
	}
	op.setPayload(sighash[:])
	op.sign = func(k *key, _ io.Reader) (any, error) {
		signed, err := types.SignTx(tx, signer, k.ec)
		if err != nil {
			return nil, err
		}
		raw, err := signed.MarshalBinary()
		if err != nil {
			return nil, err
		}
		return hexutil.Encode(raw), nil
	}
	return op, nil
}

// calldata is the transaction's data: "data" or "input", which must agree
// when both are given.
func (a *txArgs) calldata() ([]byte, error) {
	switch {
	case a.Data != nil && a.Input != nil:
		if !bytes.Equal(*a.Data, *a.Input) {
			return nil, ErrAmbiguousData
		}
		return *a.Input, nil
	case a.Input != nil:
		return *a.Input, nil
	case a.Data != nil:
		return *a.Data, nil
	}
	return nil, nil
}

// recipient checks "to" (a 0x address, EIP-55 checksummed if mixed case,
// not the zero address). Without one the transaction creates a contract,
// which needs code and may not carry value.
func (a *txArgs) recipient(data []byte, value *big.Int) (*common.Address, error) {
	if a.To == nil || *a.To == "" {
		if len(data) == 0 && value.Sign() > 0 {
			return nil, ErrCreateValue
		}
		if len(data) == 0 {
			return nil, ErrCreateNoCode
		}
		return nil, nil
	}
	if !common.IsHexAddress(*a.To) || !strings.HasPrefix(*a.To, "0x") {
		return nil, refusef(CodeInvalidParams, "invalid recipient address")
	}
	m, _ := common.NewMixedcaseAddressFromString(*a.To)
	if *a.To != strings.ToLower(*a.To) && (*a.To)[2:] != strings.ToUpper((*a.To)[2:]) && !m.ValidChecksum() {
		return nil, refusef(CodeInvalidParams, "recipient has a bad EIP-55 checksum")
	}
	addr := m.Address()
	if addr == (common.Address{}) {
		return nil, ErrZeroAddress
	}
	return &addr, nil
}

// txType is the explicit "type", else the type the fee fields imply.
func (a *txArgs) txType() uint64 {
	switch {
	case a.Type != nil:
		return uint64(*a.Type)
	case a.MaxFeePerGas != nil || a.MaxPriorityFeePerGas != nil:
		return types.DynamicFeeTxType
	case a.AccessList != nil:
		return types.AccessListTxType
	}
	return uint64(types.LegacyTxType)
}

// txData builds the transaction of type typ; its fee fields (and access
// list) must be exactly the ones that type has.
func (a *txArgs) txData(typ uint64, chainID *big.Int, to *common.Address, value *big.Int, data []byte) (types.TxData, error) {
	al := types.AccessList{}
	if a.AccessList != nil {
		al = *a.AccessList
	}
	nonce, gas := uint64(*a.Nonce), uint64(*a.Gas)
	switch typ {
	case types.LegacyTxType, types.AccessListTxType:
		if a.GasPrice == nil || a.MaxFeePerGas != nil || a.MaxPriorityFeePerGas != nil {
			return nil, ErrFeeFields
		}
		if typ == types.AccessListTxType {
			return &types.AccessListTx{ChainID: chainID, Nonce: nonce, GasPrice: a.GasPrice.ToInt(), Gas: gas, To: to, Value: value, Data: data, AccessList: al}, nil
		}
		if len(al) > 0 {
			return nil, ErrFeeFields
		}
		return &types.LegacyTx{Nonce: nonce, GasPrice: a.GasPrice.ToInt(), Gas: gas, To: to, Value: value, Data: data}, nil
	case types.DynamicFeeTxType:
		if a.GasPrice != nil || a.MaxFeePerGas == nil || a.MaxPriorityFeePerGas == nil ||
			a.MaxPriorityFeePerGas.ToInt().Cmp(a.MaxFeePerGas.ToInt()) > 0 {
			return nil, ErrFeeFields
		}
		return &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: a.MaxPriorityFeePerGas.ToInt(), GasFeeCap: a.MaxFeePerGas.ToInt(), Gas: gas, To: to, Value: value, Data: data, AccessList: al}, nil
	}
	return nil, ErrTxType
}

// describeTx fills what the approver is shown: chain, type, nonce, value,
// gas and fees (with the worst-case fee gas × fee cap), recipient or
// contract creation, and the call's selector.
func describeTx(op *Op, a *txArgs, typ uint64, to *common.Address, data []byte) {
	op.ChainID = op.chainID.String()
	op.TxType = int(typ)
	op.Nonce = uint64(*a.Nonce)
	op.Value = op.amount.String()
	op.DataLen = len(data)
	op.Gas = uint64(*a.Gas)
	var feeCap *big.Int
	if a.GasPrice != nil {
		feeCap = a.GasPrice.ToInt()
		op.GasPrice = feeCap.String()
	} else {
		feeCap = a.MaxFeePerGas.ToInt()
		op.MaxFeePerGas, op.MaxPriorityFeePerGas = feeCap.String(), a.MaxPriorityFeePerGas.ToInt().String()
	}
	op.maxFee = new(big.Int).Mul(new(big.Int).SetUint64(op.Gas), feeCap)
	op.MaxFee, op.MaxFeeETH = op.maxFee.String(), formatUnits(op.maxFee, 18)+" ETH"
	if to != nil {
		op.To = to.Hex()
	} else {
		op.Create = true
	}
	if len(data) >= 4 {
		op.Selector = hexutil.Encode(data[:4])
	}
}

// safeJSONErr names the field a JSON error is about without echoing input.
func safeJSONErr(err error) string {
	var ute *json.UnmarshalTypeError
	if e, ok := err.(*json.UnmarshalTypeError); ok {
		ute = e
		return "field " + ute.Field + " has the wrong type"
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "json: unknown field ") {
		return "unsupported " + strings.TrimPrefix(msg, "json: ")
	}
	return "malformed JSON"
}

// signHash signs an EIP-191 or EIP-712 digest, returning r||s||v with v in
// {27, 28}. It is only reached from the two decoders that built the digest
// from a prefixed message: there is no path that signs a caller's hash.
func signPrefixed(k *key, digest []byte) (any, error) {
	sig, err := crypto.Sign(digest, k.ec)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return hexutil.Encode(sig), nil
}

func decodePersonal(s *Service, c *Caller, params json.RawMessage) (*Op, error) {
	ps, err := oneParam(params, 2)
	if err != nil {
		return nil, err
	}
	var msgStr, addr string
	if json.Unmarshal(ps[0], &msgStr) != nil || json.Unmarshal(ps[1], &addr) != nil {
		return nil, refusef(CodeInvalidParams, "personal_sign wants [message, address]")
	}
	keyName, err := c.byAddress(addr)
	if err != nil {
		return nil, err
	}
	var msg []byte
	if strings.HasPrefix(msgStr, "0x") {
		if msg, err = hexutil.Decode(msgStr); err != nil {
			return nil, refusef(CodeInvalidParams, "message starts with 0x but is not hex")
		}
	} else {
		msg = []byte(msgStr)
	}
	digest := accounts.TextHash(msg)
	op := &Op{keyRef: c.refs[keyName], keyType: Secp256k1}
	op.Operation = "personal_sign"
	op.Key = keyName
	op.From = c.keys[keyName].Address
	op.Message, op.MessageLen = preview(msg, maxShown)
	op.whole = wholeText(msg)
	op.setPayload(digest)
	op.sign = func(k *key, _ io.Reader) (any, error) { return signPrefixed(k, digest) }
	return op, nil
}

// maxShown bounds what the decoded request keeps of one agent-supplied
// value (a message, a claim), in bytes: the prompt shows less, the audit
// log keeps this much.
const maxShown = 256

// preview shows a message to an approver: escaped text when it is UTF-8,
// else hex; at most max bytes of it. full is len(msg) when it was cut, else 0.
func preview(msg []byte, max int) (s string, full int) {
	cut := msg
	if len(cut) > max {
		cut = cut[:max]
		for len(cut) > 0 && !utf8.Valid(cut) && utf8.Valid(msg) {
			cut = cut[:len(cut)-1] // do not split a character
		}
	}
	s = "0x" + hex.EncodeToString(cut)
	if utf8.Valid(cut) {
		s = Escape(string(cut))
	}
	if len(msg) > len(cut) {
		full = len(msg)
	}
	return s, full
}

func decodeTyped(s *Service, c *Caller, params json.RawMessage) (*Op, error) {
	ps, err := oneParam(params, 2)
	if err != nil {
		return nil, err
	}
	var addr string
	if json.Unmarshal(ps[0], &addr) != nil {
		return nil, refusef(CodeInvalidParams, "eth_signTypedData_v4 wants [address, typedData]")
	}
	keyName, err := c.byAddress(addr)
	if err != nil {
		return nil, err
	}
	raw := []byte(ps[1])
	var str string
	if json.Unmarshal(ps[1], &str) == nil {
		raw = []byte(str) // typed data passed as a JSON string (MetaMask style)
	}
	td, err := parseTypedData(raw)
	if err != nil {
		return nil, err
	}
	digest := td.digest
	op := &Op{keyRef: c.refs[keyName], keyType: Secp256k1}
	op.Operation = "eth_signTypedData_v4"
	op.Key = keyName
	op.From = c.keys[keyName].Address
	op.PrimaryType = Escape(td.td.PrimaryType)
	op.Domain = &TypedDomain{Name: Escape(td.name), Version: Escape(td.version), ChainID: td.chainID,
		VerifyingContract: td.contract, Salt: td.salt}
	op.TypedMessage = td.tree
	op.Moves = rankMoves(decodeTypedMoves(td))
	c.showAmounts(op.Moves)
	op.setPayload(digest)
	op.sign = func(k *key, _ io.Reader) (any, error) { return signPrefixed(k, digest) }
	return op, nil
}
