<?php
declare(strict_types=1);

namespace App\Inventory;

use InvalidArgumentException;

interface Priced
{
    public function price(): float;
}

final class Item implements Priced
{
    public function __construct(
        private string $name,
        private int $count = 0,
        private float $unitPrice = 0.0,
    ) {
    }

    public function price(): float
    {
        return $this->count * $this->unitPrice;
    }

    public function restock(int $n): self
    {
        if ($n < 0) {
            throw new InvalidArgumentException("negative restock for {$this->name}");
        }
        $copy = clone $this;
        $copy->count += $n;
        return $copy;
    }

    public function name(): string
    {
        return $this->name;
    }
}

class Stock
{
    /** @var array<string, Item> */
    private array $items = [];

    public function add(Item $item): void
    {
        $this->items[$item->name()] = $item;
    }

    public function total(): float
    {
        $sum = 0.0;
        foreach ($this->items as $name => $item) {
            $sum += $item->price();
        }
        return $sum;
    }

    public function find(string $name): ?Item
    {
        return $this->items[$name] ?? null;
    }

    public static function fromArray(array $rows): self
    {
        $stock = new self();
        foreach ($rows as $row) {
            $stock->add(new Item($row['name'], (int) $row['count'], (float) $row['price']));
        }
        return $stock;
    }
}

function report(Stock $stock): string
{
    $total = $stock->total();
    echo sprintf("total: %.2f\n", $total);
    return strlen((string) $total) > 3 ? "big" : "small";
}

$stock = Stock::fromArray([['name' => 'nail', 'count' => '100', 'price' => '0.05']]);
echo report($stock);
$nail = $stock->find('nail');
if ($nail !== null) {
    echo $nail->name(), PHP_EOL;
}
