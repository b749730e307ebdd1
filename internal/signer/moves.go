package signer

// Move is one thing a signature would let move, decoded by the signer from
// calldata or typed data (never described by the agent). Amounts are in the
// token's base units (decimal); AmountText adds the decimals when policy
// declares the token.
type Move struct {
	Kind       string `json:"kind"`            // e.g. "erc20.transfer", "erc20.approve", "eip2612.permit", "unknown"
	Token      string `json:"token,omitempty"` // token contract
	From       string `json:"from,omitempty"`  // owner, when not the signer
	To         string `json:"to,omitempty"`    // recipient, spender or operator
	Amount     string `json:"amount,omitempty"`
	AmountText string `json:"amount_text,omitempty"` // e.g. "1000000 USDC"
	TokenID    string `json:"token_id,omitempty"`
	Approved   *bool  `json:"approved,omitempty"` // setApprovalForAll
	Deadline   string `json:"deadline,omitempty"` // unix seconds (decimal), as signed
	Note       string `json:"note,omitempty"`
	Risk       string `json:"risk,omitempty"`  // RiskHigh: read this first (rankMoves)
	Index      int    `json:"index,omitempty"` // 1-based position in the request as signed, when it has several moves

	refund bool // a Safe transaction that refunds gas (token budgets cannot count it)
}

// tokenABI is the standard calldata the signer decodes (ERC-20, ERC-721,
// ERC-1155, and the two common multicall wrappers), parsed by go-ethereum's
// accounts/abi. ERC-20 and ERC-721 share transferFrom and approve.
const tokenABI = `[
{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}]},
{"type":"function","name":"transferFrom","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"amount","type":"uint256"}]},
{"type":"function","name":"approve","inputs":[{"name":"spender","type":"address"},{"name":"amount","type":"uint256"}]},
{"type":"function","name":"increaseAllowance","inputs":[{"name":"spender","type":"address"},{"name":"addedValue","type":"uint256"}]},
{"type":"function","name":"safeTransferFrom","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"tokenId","type":"uint256"}]},
{"type":"function","name":"safeTransferFrom","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"tokenId","type":"uint256"},{"name":"data","type":"bytes"}]},
{"type":"function","name":"safeTransferFrom","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"id","type":"uint256"},{"name":"amount","type":"uint256"},{"name":"data","type":"bytes"}]},
{"type":"function","name":"safeBatchTransferFrom","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"ids","type":"uint256[]"},{"name":"amounts","type":"uint256[]"},{"name":"data","type":"bytes"}]},
{"type":"function","name":"setApprovalForAll","inputs":[{"name":"operator","type":"address"},{"name":"approved","type":"bool"}]},
{"type":"function","name":"multicall","inputs":[{"name":"data","type":"bytes[]"}]},
{"type":"function","name":"multicall","inputs":[{"name":"deadline","type":"uint256"},{"name":"data","type":"bytes[]"}]}
]`
