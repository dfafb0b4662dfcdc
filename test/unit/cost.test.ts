/** Event cost: what is stored for an input and what the wire shows (docs/compatibility.md §1.3, §4.1). */
import { costOf, parseCost } from '../../src/domain/cost';

/** Write then read: the wire `cost` and `cost_details` of an input. */
function roundTrip(input: Parameters<typeof parseCost>[0]) {
  const { entries, symbol, position } = parseCost(input);
  return costOf(entries, symbol, position);
}

describe('parseCost', () => {
  it.each([
    ['20$', ['20$'], '$', 'postfix'],
    ['$15', ['$15'], '$', 'prefix'],
    ['€6.50 - €8.50', ['€6.50 - €8.50'], '€', 'prefix'],
    ['€ 6,50', ['€ 6,50'], '€', 'prefix'],
    ['12 EUR', ['12 EUR'], 'EUR', 'postfix'],
    ['10 - 20$', ['10 - 20$'], '', ''], // one price without the symbol: mixed, as in the plugin
    ['10 - 25 USD', ['10 - 25 USD'], '', ''],
    ['Free – 30$', ['Free – 30$'], '$', 'postfix'],
    ['5,50 7,50', ['5,50 7,50'], '', ''],
    ['Donation', ['Donation'], '', ''],
    ['$10 - 20€', ['$10 - 20€'], '', ''], // two symbols: none
    ['From $10 to $20', ['From $10 to $20'], '', ''], // not just a symbol beside the number
    ['  25  ', ['25'], '', ''],
  ])('%j → entries %j, symbol %j, position %j', (input, entries, symbol, position) => {
    expect(parseCost(input)).toEqual({ entries, symbol, position });
  });

  it('takes an array as several entries, numbers as strings, and drops empty ones', () => {
    const entries = ['0$', '20$', '30$'];
    expect(parseCost(entries)).toEqual({ entries, symbol: '$', position: 'postfix' });
    expect(parseCost([12, '', '  ', '15.5'])).toEqual({ entries: ['12', '15.5'], symbol: '', position: '' });
    expect(parseCost(23)).toEqual({ entries: ['23'], symbol: '', position: '' });
    expect(parseCost('')).toEqual({ entries: [], symbol: '', position: '' });
    expect(parseCost([])).toEqual({ entries: [], symbol: '', position: '' });
  });

  it('keeps a symbol only when it sits on the same side everywhere', () => {
    expect(parseCost(['$10', '20$'])).toEqual({ entries: ['$10', '20$'], symbol: '$', position: '' });
  });
});

describe('costOf', () => {
  it.each([
    ['20$', '20$', ['20']],
    [['0$', '20$', '30$'], 'Free – 30$', ['0', '20', '30']],
    ['€6.50 - €8.50', '€6.50 – €8.50', ['6.50', '8.50']],
    ['$15', '$15', ['15']],
    ['0', 'Free', ['0']],
    [['30$', '10$', '20$', '10$'], '10$ – 30$', ['10', '20', '30']],
    ['$1,000', '$1,000', ['1000']],
    ['1.000,50 €', '1.000,50€', ['1000.50']],
  ])('%j → cost %j, values %j', (input, cost, values) => {
    const result = roundTrip(input);
    expect(result.cost).toBe(cost);
    expect(result.cost_details.values).toEqual(values);
  });

  it('normalises the decimal separator in values and echoes the number as written in cost', () => {
    expect(roundTrip('5,50 7,50')).toEqual({
      cost: '$5,50 – $7,50',
      cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: ['5.50', '7.50'] },
    });
  });

  it('uses the site default $ before the amount when nothing is stored', () => {
    expect(costOf(['23'], '$', 'prefix')).toEqual({
      cost: '$23',
      cost_details: { currency_symbol: '$', currency_code: '', currency_position: 'prefix', values: ['23'] },
    });
    expect(costOf(['23'], '', '').cost).toBe('$23');
    expect(costOf(['23'], '€', '').cost).toBe('€23');
    expect(costOf(['23'], '', 'postfix').cost).toBe('23$');
  });

  it('is empty when there is no cost', () => {
    expect(costOf([], '', '')).toEqual({
      cost: '',
      cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
    });
  });

  it('echoes entries without a number and lists their slugs in values', () => {
    expect(roundTrip('Donation')).toEqual({
      cost: 'Donation',
      cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: ['donation'] },
    });
    expect(roundTrip(['Pay what you can', 'Donation'])).toMatchObject({
      cost: 'Pay what you can, Donation',
      cost_details: { values: ['donation', 'pay-what-you-can'] },
    });
  });

  it('shows only the amounts when entries mix text and numbers, listing numbers first in values', () => {
    expect(roundTrip(['Donation', '10$'])).toMatchObject({ cost: '10$', cost_details: { values: ['10', 'donation'] } });
  });

  it('never has a currency code (not writable in v1)', () => {
    expect(roundTrip('12 EUR').cost_details.currency_code).toBe('');
  });
});
