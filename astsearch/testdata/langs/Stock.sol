// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./IERC20.sol";

/// @title A small stock ledger.
contract Stock {
    struct Item {
        string name;
        uint256 count;
        uint256 price;
    }

    address public owner;
    mapping(bytes32 => Item) private items;
    bytes32[] private keys;

    event Restocked(bytes32 indexed key, uint256 count);
    error NotOwner(address caller);

    modifier onlyOwner() {
        if (msg.sender != owner) {
            revert NotOwner(msg.sender);
        }
        _;
    }

    constructor() {
        owner = msg.sender;
    }

    function add(string calldata name, uint256 count, uint256 price) external onlyOwner {
        bytes32 key = keccak256(abi.encodePacked(name));
        require(items[key].price == 0, "exists");
        items[key] = Item(name, count, price);
        keys.push(key);
    }

    function restock(bytes32 key, uint256 n) external onlyOwner returns (uint256) {
        Item storage item = items[key];
        require(item.price != 0, "unknown item");
        item.count += n;
        emit Restocked(key, item.count);
        return item.count;
    }

    function total() public view returns (uint256 sum) {
        for (uint256 i = 0; i < keys.length; i++) {
            Item memory item = items[keys[i]];
            sum += item.count * item.price;
        }
    }

    function pay(IERC20 token, address to, uint256 amount) external onlyOwner {
        require(to != address(0), "zero address");
        bool ok = token.transfer(to, amount);
        require(ok, "transfer failed");
    }
}
