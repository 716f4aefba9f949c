using System;
using System.Collections.Generic;
using System.Linq;
using Clock = System.DateTimeOffset;
using static System.Math;

namespace Hotel.Bookings
{
    /// <summary>Whether a room can be booked.</summary>
    public enum RoomState
    {
        Free,
        Reserved,
        OutOfService
    }

    public interface IBookingStore
    {
        Booking Find(Guid id);
        void Save(Booking booking);
        int Count { get; }
    }

    public record Booking(Guid Id, string Guest, DateTime Arrival, int Nights);

    public delegate void BookingChanged(Booking booking);

    public struct Price
    {
        public decimal Amount;
        public string Currency;
    }

    public class BookingService : ServiceBase, IBookingStore, IDisposable
    {
        public const int MaxNights = 30;
        private static readonly TimeSpan CheckIn = TimeSpan.FromHours(14);

        private readonly Dictionary<Guid, Booking> _bookings = new Dictionary<Guid, Booking>();

        public event BookingChanged Changed;

        public int Count => _bookings.Count;

        public BookingService(ILogger logger) : base(logger)
        {
        }

        [Obsolete("use Find")]
        public Booking Lookup(Guid id) => Find(id);

        public Booking Find(Guid id)
        {
            _bookings.TryGetValue(id, out var booking);
            return booking;
        }

        public void Save(Booking booking)
        {
            if (booking.Nights > MaxNights)
            {
                throw new ArgumentOutOfRangeException(nameof(booking));
            }
            _bookings[booking.Id] = booking;
            Changed?.Invoke(booking);
        }

        public Price Quote(Booking booking, decimal nightly)
        {
            var total = Round(nightly * booking.Nights, 2);
            return new Price { Amount = total, Currency = "EUR" };
        }

        public IEnumerable<Booking> Arrivals(DateTime day)
        {
            return _bookings.Values.Where(b => b.Arrival.Date == day.Date);
        }

        public void Dispose()
        {
            _bookings.Clear();
        }

        private sealed class AuditEntry
        {
            public Clock At { get; set; }
            public string Note { get; set; }
        }
    }
}
