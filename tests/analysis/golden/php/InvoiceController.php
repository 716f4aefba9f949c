<?php

declare(strict_types=1);

namespace App\Http\Controllers;

use App\Models\Invoice;
use App\Services\{PdfRenderer, Mailer as OutboundMailer};
use Illuminate\Http\Request;
use function App\Support\money_format;

require_once __DIR__ . '/../helpers.php';

const DEFAULT_CURRENCY = 'EUR';

interface Exportable
{
    public function export(string $format): string;
}

trait LogsActivity
{
    protected function log(string $message): void
    {
        Logger::info($message);
    }
}

enum InvoiceStatus: string
{
    case Draft = 'draft';
    case Sent = 'sent';
    case Paid = 'paid';

    public function label(): string
    {
        return ucfirst($this->value);
    }
}

final class InvoiceController extends Controller implements Exportable
{
    use LogsActivity;

    public const PAGE_SIZE = 25;

    private PdfRenderer $renderer;
    private ?OutboundMailer $mailer = null;

    public function __construct(PdfRenderer $renderer, OutboundMailer $mailer)
    {
        $this->renderer = $renderer;
        $this->mailer = $mailer;
    }

    public function show(Request $request, int $id): Invoice
    {
        $invoice = Invoice::findOrFail($id);
        $this->authorize('view', $invoice);
        return $invoice;
    }

    public function send(int $id): array
    {
        $invoice = $this->show(request(), $id);
        $pdf = $this->renderer->render($invoice);
        $this->mailer->deliver($invoice->customer_email, $pdf);
        $invoice->status = InvoiceStatus::Sent;
        $invoice->save();
        $this->log("sent invoice {$id}");

        return ['total' => money_format($invoice->total, DEFAULT_CURRENCY)];
    }

    public function export(string $format): string
    {
        $rows = array_map(fn (Invoice $i) => $i->toArray(), Invoice::all());
        return (new CsvWriter($format))->write($rows);
    }

    public static function pageSize(): int
    {
        return self::PAGE_SIZE;
    }
}

function invoice_total(array $lines): float
{
    $sum = 0.0;
    foreach ($lines as $line) {
        $sum += $line['amount'];
    }
    return $sum;
}
