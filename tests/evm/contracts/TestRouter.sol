// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC20Minimal {
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title TestRouter
/// @notice Tiny fixed-rate swap router standing in for an aggregator's router in local tests.
///         amountOut = amountIn * numerator / denominator, paid from the router's own balance.
///         The pseudo-address NATIVE stands for ETH (as tokenIn: msg.value must equal amountIn;
///         as tokenOut: ETH is sent to the recipient).
contract TestRouter {
    address public constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    struct Rate {
        uint256 numerator;
        uint256 denominator;
    }

    address public owner;
    mapping(address => mapping(address => Rate)) public rates;

    event RateSet(address indexed tokenIn, address indexed tokenOut, uint256 numerator, uint256 denominator);
    event Swapped(
        address indexed sender,
        address indexed tokenIn,
        address indexed tokenOut,
        uint256 amountIn,
        uint256 amountOut,
        address recipient
    );

    constructor() {
        owner = msg.sender;
    }

    /// @notice Lets the router hold ETH so it can pay out NATIVE.
    receive() external payable {}

    function setRate(address tokenIn, address tokenOut, uint256 numerator, uint256 denominator) external {
        require(msg.sender == owner, "Router: not owner");
        require(denominator != 0, "Router: zero denominator");
        rates[tokenIn][tokenOut] = Rate(numerator, denominator);
        emit RateSet(tokenIn, tokenOut, numerator, denominator);
    }

    /// @notice Same math as swap(), for quoting.
    function quote(address tokenIn, address tokenOut, uint256 amountIn) public view returns (uint256) {
        Rate memory r = rates[tokenIn][tokenOut];
        require(r.denominator != 0, "Router: no rate");
        return (amountIn * r.numerator) / r.denominator;
    }

    function swap(address tokenIn, address tokenOut, uint256 amountIn, uint256 minAmountOut, address recipient)
        external
        payable
        returns (uint256 amountOut)
    {
        require(recipient != address(0), "Router: zero recipient");
        amountOut = quote(tokenIn, tokenOut, amountIn);
        require(amountOut >= minAmountOut, "Router: insufficient output");

        if (tokenIn == NATIVE) {
            require(msg.value == amountIn, "Router: wrong msg.value");
        } else {
            require(msg.value == 0, "Router: unexpected msg.value");
            require(IERC20Minimal(tokenIn).transferFrom(msg.sender, address(this), amountIn), "Router: transferFrom failed");
        }

        if (tokenOut == NATIVE) {
            (bool ok,) = recipient.call{value: amountOut}("");
            require(ok, "Router: ETH transfer failed");
        } else {
            require(IERC20Minimal(tokenOut).transfer(recipient, amountOut), "Router: transfer failed");
        }

        emit Swapped(msg.sender, tokenIn, tokenOut, amountIn, amountOut, recipient);
    }
}
