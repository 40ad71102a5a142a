//! Recognising SPL Token and Token-2022 token accounts by their data, shared by the JSON-RPC filters and
//! encodings and the gRPC `token_account_state` filter.

use solana_account::{AccountSharedData, ReadableAccount};

/// SPL Token account layout, for `token_account_state`: 165 bytes, `state` at byte 108 (0 uninitialized,
/// 1 initialized, 2 frozen). Token-2022 accounts with extensions are longer and carry their account type
/// (2 = account) at byte 165; a 355-byte account is a multisig.
const TOKEN_ACCOUNT_LEN: usize = 165;
const TOKEN_ACCOUNT_STATE_OFFSET: usize = 108;
const TOKEN_MULTISIG_LEN: usize = 355;
const TOKEN_2022_ACCOUNT_TYPE_ACCOUNT: u8 = 2;

/// Whether `data` is an initialized SPL Token or Token-2022 token account.
pub fn is_token_account_data(data: &[u8]) -> bool {
    let initialized = matches!(data.get(TOKEN_ACCOUNT_STATE_OFFSET), Some(1 | 2));
    match data.len() {
        TOKEN_ACCOUNT_LEN => initialized,
        TOKEN_MULTISIG_LEN => false,
        len if len > TOKEN_ACCOUNT_LEN => {
            initialized && data.get(TOKEN_ACCOUNT_LEN) == Some(&TOKEN_2022_ACCOUNT_TYPE_ACCOUNT)
        }
        _ => false,
    }
}

/// Whether `account` is an initialized token account owned by SPL Token or Token-2022.
pub fn is_token_account(account: &AccountSharedData) -> bool {
    (*account.owner() == anchor_spl::token::ID || *account.owner() == anchor_spl::token_2022::ID)
        && is_token_account_data(account.data())
}
