// Carrot reference vectors for Vigil, made with upstream's own carrot_core
// (monero-project/monero PR #9559 @ c7b6ee459f09ec00b444b565c122560bfc0bfda8).
//
// Three legacy (CryptoNote-key) wallets are derived from fixed labels:
// "merchant" (the watched wallet, with subaddresses in accounts 0, 1 and 3 and
// an integrated address), "payer" (the sender, whose change comes back to its
// main address as an external self-send) and "other" (a third party). The
// sender side is carrot_core's: payment proposals -> get_output_enote_proposals
// (normal enotes, special self-send change made with the payer's k_v device)
// and get_coinbase_output_enotes. The expected results are carrot_core's
// receiver scan (try_make_carrot_shared_key_receiver,
// try_scan_carrot_enote_external_receiver,
// try_scan_carrot_coinbase_enote_receiver) run for every wallet over every
// output, then looked up in that wallet's spend-key table as a legacy wallet
// does; the program aborts if any scan disagrees with what was sent.
//
// The only derivation written here rather than called from carrot_core is the
// legacy subaddress (carrot_core leaves it to the wallet): it follows
// src/device/device_default.cpp get_subaddress_secret_key /
// get_subaddress_spend_public_keys at the same commit,
//   m = H_s("SubAddr\0" || k_v || major_le32 || minor_le32),
//   K_s^j = K_s + m G,  K_v^j = k_v K_s^j,
// using cncrypto's hash_to_scalar and ge_* operations.
//
// Output: JSON on stdout. Build and run: see README.md beside this file.

#include "carrot_core/account_secrets.h"
#include "carrot_core/address_utils.h"
#include "carrot_core/carrot_enote_types.h"
#include "carrot_core/destination.h"
#include "carrot_core/device_ram_borrowed.h"
#include "carrot_core/enote_utils.h"
#include "carrot_core/output_set_finalization.h"
#include "carrot_core/payment_proposal.h"
#include "carrot_core/scan.h"
#include "crypto/crypto.h"
#include "crypto/hash.h"
extern "C" {
#include "crypto/crypto-ops.h"
}
#include "span.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace carrot;

namespace {

void require(bool ok, const std::string &what)
{
    if (!ok)
        throw std::runtime_error("check failed: " + what);
}

std::string hex(const void *p, std::size_t n)
{
    static const char *digits = "0123456789abcdef";
    const unsigned char *b = static_cast<const unsigned char *>(p);
    std::string s;
    for (std::size_t i = 0; i < n; ++i)
    {
        s += digits[b[i] >> 4];
        s += digits[b[i] & 15];
    }
    return s;
}
template <typename T> std::string hexOf(const T &v) { return hex(&v, sizeof(v)); }

std::string q(const std::string &s) { return "\"" + s + "\""; }

// A scalar from a label: H_s("vigil carrot reference vectors: " || label).
crypto::secret_key scalarFor(const std::string &label)
{
    const std::string data = "vigil carrot reference vectors: " + label;
    crypto::secret_key k;
    crypto::hash_to_scalar(data.data(), data.size(), k);
    return k;
}

// Fixed bytes from a label: Keccak256("vigil carrot reference bytes: " || label), truncated.
template <typename T> T bytesFor(const std::string &label)
{
    static_assert(sizeof(T) <= 32, "at most 32 bytes");
    const std::string data = "vigil carrot reference bytes: " + label;
    const crypto::hash h = crypto::cn_fast_hash(data.data(), data.size());
    T out;
    std::memcpy(&out, h.data, sizeof(T));
    return out;
}

crypto::public_key pub(const crypto::secret_key &k)
{
    crypto::public_key P;
    require(crypto::secret_key_to_public_key(k, P), "secret_key_to_public_key");
    return P;
}

// k * P for a point P (no cofactor).
crypto::public_key scalarmult(const crypto::secret_key &k, const crypto::public_key &P)
{
    ge_p3 p3;
    require(ge_frombytes_vartime(&p3, reinterpret_cast<const unsigned char *>(P.data)) == 0, "point decodes");
    ge_p2 r;
    ge_scalarmult(&r, reinterpret_cast<const unsigned char *>(k.data), &p3);
    crypto::public_key out;
    ge_tobytes(reinterpret_cast<unsigned char *>(out.data), &r);
    return out;
}

crypto::public_key add(const crypto::public_key &A, const crypto::public_key &B)
{
    ge_p3 a, b;
    require(ge_frombytes_vartime(&a, reinterpret_cast<const unsigned char *>(A.data)) == 0, "point A decodes");
    require(ge_frombytes_vartime(&b, reinterpret_cast<const unsigned char *>(B.data)) == 0, "point B decodes");
    ge_cached bc;
    ge_p3_to_cached(&bc, &b);
    ge_p1p1 sum;
    ge_add(&sum, &a, &bc);
    ge_p3 s3;
    ge_p1p1_to_p3(&s3, &sum);
    crypto::public_key out;
    ge_p3_tobytes(reinterpret_cast<unsigned char *>(out.data), &s3);
    return out;
}

struct Index
{
    std::uint32_t major, minor;
};

// Legacy subaddress spend key (device_default.cpp at the same commit).
crypto::public_key legacySubaddressSpendKey(const crypto::secret_key &k_v, const crypto::public_key &K_s, Index j)
{
    unsigned char data[8 + 32 + 4 + 4];
    std::memcpy(data, "SubAddr\0", 8);
    std::memcpy(data + 8, k_v.data, 32);
    for (int i = 0; i < 4; ++i)
    {
        data[40 + i] = static_cast<unsigned char>(j.major >> (8 * i));
        data[44 + i] = static_cast<unsigned char>(j.minor >> (8 * i));
    }
    crypto::secret_key m;
    crypto::hash_to_scalar(data, sizeof(data), m);
    return add(K_s, pub(m));
}

struct Wallet
{
    std::string name;
    crypto::secret_key k_s, k_v;
    crypto::public_key K_s, K_v;
    std::vector<std::pair<Index, CarrotDestinationV1>> subaddresses;
    std::map<std::string, Index> table; // hex(K_s^j) -> index, main = (0,0)

    explicit Wallet(const std::string &n) : name(n)
    {
        k_s = scalarFor(n + " spend");
        k_v = scalarFor(n + " view");
        K_s = pub(k_s);
        K_v = pub(k_v);
        table[hexOf(K_s)] = {0, 0};
    }
    CarrotDestinationV1 main() const
    {
        CarrotDestinationV1 d;
        make_carrot_main_address_v1(K_s, K_v, d);
        return d;
    }
    CarrotDestinationV1 integrated(const payment_id_t &pid) const
    {
        CarrotDestinationV1 d;
        make_carrot_integrated_address_v1(K_s, K_v, pid, d);
        return d;
    }
    CarrotDestinationV1 sub(Index j)
    {
        const crypto::public_key spend = legacySubaddressSpendKey(k_v, K_s, j);
        CarrotDestinationV1 d{spend, scalarmult(k_v, spend), true, null_payment_id};
        subaddresses.push_back({j, d});
        table[hexOf(spend)] = j;
        return d;
    }
};

// What carrot_core's receiver scan says one wallet owns in one output.
struct Found
{
    crypto::public_key address_spend_pubkey;
    Index index;
    xmr_amount amount;
    crypto::secret_key amount_blinding_factor;
    payment_id_t payment_id;
    CarrotEnoteType enote_type;
};

std::optional<Found> lookup(const Wallet &w, const crypto::public_key &Ksj)
{
    const auto it = w.table.find(hexOf(Ksj));
    if (it == w.table.end())
        return std::nullopt;
    Found f{};
    f.address_spend_pubkey = Ksj;
    f.index = it->second;
    return f;
}

std::optional<Found> scanNormal(const Wallet &w, const CarrotEnoteV1 &e, const encrypted_payment_id_t &pid_enc)
{
    const view_incoming_key_ram_borrowed_device k_view_dev(w.k_v);
    crypto::x25519_pubkey s_sr;
    if (!try_make_carrot_shared_key_receiver(k_view_dev, e.enote_ephemeral_pubkey, s_sr))
        return std::nullopt;
    crypto::secret_key kg, kt, k_a;
    crypto::public_key Ksj;
    xmr_amount amount;
    payment_id_t pid;
    CarrotEnoteType type;
    if (!try_scan_carrot_enote_external_receiver(e, pid_enc, s_sr, epee::span<const crypto::public_key>(&w.K_s, 1),
            k_view_dev, kg, kt, Ksj, amount, k_a, pid, type))
        return std::nullopt;
    std::optional<Found> f = lookup(w, Ksj);
    require(f.has_value(), w.name + ": scan succeeded for a K_s^j outside the wallet's table");
    f->amount = amount;
    f->amount_blinding_factor = k_a;
    f->payment_id = pid;
    f->enote_type = type;
    return f;
}

std::optional<Found> scanCoinbase(const Wallet &w, const CarrotCoinbaseEnoteV1 &e)
{
    const view_incoming_key_ram_borrowed_device k_view_dev(w.k_v);
    crypto::x25519_pubkey s_sr;
    if (!try_make_carrot_shared_key_receiver(k_view_dev, e.enote_ephemeral_pubkey, s_sr))
        return std::nullopt;
    crypto::secret_key kg, kt;
    if (!try_scan_carrot_coinbase_enote_receiver(e, s_sr, w.K_s, kg, kt))
        return std::nullopt;
    std::optional<Found> f = lookup(w, w.K_s);
    f->amount = e.amount;
    std::memset(f->amount_blinding_factor.data, 0, 32);
    f->amount_blinding_factor.data[0] = 1; // coinbase C_a = G + a H
    f->payment_id = null_payment_id;
    f->enote_type = CarrotEnoteType::PAYMENT;
    return f;
}

// Who an output was sent to, checked against every wallet's scan.
struct Intent
{
    const Wallet *owner;
    Index index;
    xmr_amount amount;
    payment_id_t payment_id;
    CarrotEnoteType enote_type;
    std::string label;
};

std::string foundJson(const std::optional<Found> &f)
{
    if (!f)
        return "null";
    std::ostringstream o;
    o << "{\"address_spend_pubkey\":" << q(hexOf(f->address_spend_pubkey))
      << ",\"subaddress\":{\"major\":" << f->index.major << ",\"minor\":" << f->index.minor << "}"
      << ",\"amount\":" << q(std::to_string(f->amount))
      << ",\"amount_blinding_factor\":" << q(hexOf(f->amount_blinding_factor))
      << ",\"payment_id\":" << (f->payment_id == null_payment_id ? "null" : q(hexOf(f->payment_id)))
      << ",\"enote_type\":" << q(f->enote_type == CarrotEnoteType::PAYMENT ? "payment" : "change") << "}";
    return o.str();
}

void checkScan(const std::vector<const Wallet *> &wallets, const std::vector<std::optional<Found>> &found, const Intent &in)
{
    for (std::size_t i = 0; i < wallets.size(); ++i)
    {
        const bool should = wallets[i] == in.owner;
        require(found[i].has_value() == should, in.label + ": ownership for " + wallets[i]->name);
        if (!should)
            continue;
        const Found &f = *found[i];
        require(f.index.major == in.index.major && f.index.minor == in.index.minor, in.label + ": index");
        require(f.amount == in.amount, in.label + ": amount");
        require(f.payment_id == in.payment_id, in.label + ": payment id");
        require(f.enote_type == in.enote_type, in.label + ": enote type");
    }
}

std::string scansJson(const std::vector<const Wallet *> &wallets, const std::vector<std::optional<Found>> &found)
{
    std::ostringstream o;
    o << "{";
    for (std::size_t i = 0; i < wallets.size(); ++i)
        o << (i ? "," : "") << q(wallets[i]->name) << ":" << foundJson(found[i]);
    o << "}";
    return o.str();
}

CarrotPaymentProposalV1 pay(const CarrotDestinationV1 &to, xmr_amount amount, const std::string &label)
{
    return CarrotPaymentProposalV1{to, amount, bytesFor<janus_anchor_t>(label + " anchor_norm")};
}

struct Recipient
{
    CarrotDestinationV1 destination;
    Intent intent;
};

// One transfer: normal payments plus the payer's change (an external self-send, k_v device).
std::string transfer(const std::string &name, const std::string &about, const std::vector<Recipient> &recipients,
    const Wallet &payer, xmr_amount change, const std::vector<const Wallet *> &wallets)
{
    const crypto::key_image L0 = [&] {
        crypto::key_image ki;
        const crypto::public_key P = pub(scalarFor(name + " first key image"));
        std::memcpy(ki.data, P.data, 32);
        return ki;
    }();
    std::vector<CarrotPaymentProposalV1> normals;
    for (const Recipient &r : recipients)
        normals.push_back(pay(r.destination, r.intent.amount, name + " " + r.intent.label));
    CarrotPaymentProposalSelfSendV1 selfsend{payer.K_s, false, change, CarrotEnoteType::CHANGE, std::nullopt, std::nullopt};
    if (normals.size() + 1 > 2)
        selfsend.enote_ephemeral_privkey = scalarFor(name + " change d_e");
    const view_incoming_key_ram_borrowed_device payer_k_view(payer.k_v);
    std::vector<RCTOutputEnoteProposal> proposals;
    encrypted_payment_id_t pid_enc;
    std::vector<std::pair<bool, std::size_t>> order;
    get_output_enote_proposals(normals, {selfsend}, bytesFor<encrypted_payment_id_t>(name + " dummy pid_enc"), nullptr,
        &payer_k_view, L0, proposals, pid_enc, &order);
    const input_context_t input_context = make_carrot_input_context(L0);

    std::ostringstream o;
    o << "{\"name\":" << q(name) << ",\"about\":" << q(about) << ",\"kind\":\"transfer\""
      << ",\"first_key_image\":" << q(hexOf(L0)) << ",\"input_context\":" << q(hexOf(input_context))
      << ",\"pid_enc\":" << q(hexOf(pid_enc)) << ",\"outputs\":[";
    for (std::size_t i = 0; i < proposals.size(); ++i)
    {
        const CarrotEnoteV1 &e = proposals[i].enote;
        require(e.tx_first_key_image == L0, name + ": L_0 carried");
        const Intent in = order[i].first
            ? Intent{&payer, {0, 0}, change, null_payment_id, CarrotEnoteType::CHANGE, "payer change"}
            : recipients[order[i].second].intent;
        std::vector<std::optional<Found>> found;
        for (const Wallet *w : wallets)
            found.push_back(scanNormal(*w, e, pid_enc));
        checkScan(wallets, found, in);
        o << (i ? "," : "") << "{\"sent_to\":" << q(in.label)
          << ",\"onetime_address\":" << q(hexOf(e.onetime_address))
          << ",\"amount_commitment\":" << q(hexOf(e.amount_commitment))
          << ",\"amount_enc\":" << q(hexOf(e.amount_enc))
          << ",\"anchor_enc\":" << q(hexOf(e.anchor_enc))
          << ",\"view_tag\":" << q(hexOf(e.view_tag))
          << ",\"ephemeral_pubkey\":" << q(hexOf(e.enote_ephemeral_pubkey))
          << ",\"scan\":" << scansJson(wallets, found) << "}";
    }
    o << "]}";
    return o.str();
}

std::string coinbase(const std::string &name, const std::string &about, std::uint64_t block_index,
    const std::vector<Recipient> &recipients, const std::vector<const Wallet *> &wallets)
{
    std::vector<CarrotPaymentProposalV1> normals;
    for (const Recipient &r : recipients)
        normals.push_back(pay(r.destination, r.intent.amount, name + " " + r.intent.label));
    std::vector<CarrotCoinbaseEnoteV1> enotes;
    get_coinbase_output_enotes(normals, block_index, enotes);
    const input_context_t input_context = make_carrot_input_context_coinbase(block_index);
    std::ostringstream o;
    o << "{\"name\":" << q(name) << ",\"about\":" << q(about) << ",\"kind\":\"coinbase\""
      << ",\"block_index\":" << q(std::to_string(block_index)) << ",\"input_context\":" << q(hexOf(input_context))
      << ",\"outputs\":[";
    for (std::size_t i = 0; i < enotes.size(); ++i)
    {
        const CarrotCoinbaseEnoteV1 &e = enotes[i];
        require(e.block_index == block_index, name + ": block index carried");
        // get_coinbase_output_enotes sorts by K_o: find the recipient by amount (distinct here).
        const Recipient *r = nullptr;
        for (const Recipient &c : recipients)
            if (c.intent.amount == e.amount)
                r = &c;
        require(r != nullptr, name + ": recipient of a coinbase enote");
        std::vector<std::optional<Found>> found;
        for (const Wallet *w : wallets)
            found.push_back(scanCoinbase(*w, e));
        checkScan(wallets, found, r->intent);
        o << (i ? "," : "") << "{\"sent_to\":" << q(r->intent.label)
          << ",\"onetime_address\":" << q(hexOf(e.onetime_address))
          << ",\"amount\":" << q(std::to_string(e.amount))
          << ",\"anchor_enc\":" << q(hexOf(e.anchor_enc))
          << ",\"view_tag\":" << q(hexOf(e.view_tag))
          << ",\"ephemeral_pubkey\":" << q(hexOf(e.enote_ephemeral_pubkey))
          << ",\"scan\":" << scansJson(wallets, found) << "}";
    }
    o << "]}";
    return o.str();
}

std::string walletJson(const Wallet &w, const std::optional<std::pair<payment_id_t, CarrotDestinationV1>> &integrated)
{
    std::ostringstream o;
    o << "{\"spend_public\":" << q(hexOf(w.K_s)) << ",\"view_secret\":" << q(hexOf(w.k_v))
      << ",\"view_public\":" << q(hexOf(w.K_v)) << ",\"subaddresses\":[";
    for (std::size_t i = 0; i < w.subaddresses.size(); ++i)
    {
        const auto &[j, d] = w.subaddresses[i];
        o << (i ? "," : "") << "{\"major\":" << j.major << ",\"minor\":" << j.minor
          << ",\"spend_public\":" << q(hexOf(d.address_spend_pubkey))
          << ",\"view_public\":" << q(hexOf(d.address_view_pubkey)) << "}";
    }
    o << "]";
    if (integrated)
        o << ",\"integrated\":{\"payment_id\":" << q(hexOf(integrated->first))
          << ",\"spend_public\":" << q(hexOf(integrated->second.address_spend_pubkey))
          << ",\"view_public\":" << q(hexOf(integrated->second.address_view_pubkey)) << "}";
    o << "}";
    return o.str();
}

} // namespace

int main()
{
    try
    {
        Wallet merchant("merchant"), payer("payer"), other("other");
        const std::vector<const Wallet *> wallets{&merchant, &payer, &other};
        const CarrotDestinationV1 sub03 = merchant.sub({0, 3});
        const CarrotDestinationV1 sub17 = merchant.sub({1, 7});
        const CarrotDestinationV1 sub12 = merchant.sub({1, 2});
        const CarrotDestinationV1 sub312 = merchant.sub({3, 12});
        const payment_id_t pid = bytesFor<payment_id_t>("merchant integrated payment id");
        const CarrotDestinationV1 integrated = merchant.integrated(pid);
        const xmr_amount U64_MAX = ~std::uint64_t{0};

        const auto to = [](const CarrotDestinationV1 &d, const Wallet &w, Index j, xmr_amount a, const std::string &label,
                            const payment_id_t &p = null_payment_id) {
            return Recipient{d, Intent{&w, j, a, p, CarrotEnoteType::PAYMENT, label}};
        };

        std::vector<std::string> txs;
        txs.push_back(transfer("two-out-main", "2 outputs: merchant main address + payer change (shared D_e)",
            {to(merchant.main(), merchant, {0, 0}, 1234567890123, "merchant main")}, payer, 7000000, wallets));
        txs.push_back(transfer("two-out-sub-0-3", "2 outputs: merchant subaddress (0,3) + payer change",
            {to(sub03, merchant, {0, 3}, 42000000, "merchant (0,3)")}, payer, 1, wallets));
        txs.push_back(transfer("two-out-sub-1-7", "2 outputs: merchant subaddress (1,7) + payer change",
            {to(sub17, merchant, {1, 7}, 999999999999, "merchant (1,7)")}, payer, 250000000000, wallets));
        txs.push_back(transfer("two-out-sub-3-12-u64max", "2 outputs: merchant subaddress (3,12) with amount 2^64-1 + payer change",
            {to(sub312, merchant, {3, 12}, U64_MAX, "merchant (3,12)")}, payer, 0, wallets));
        txs.push_back(transfer("two-out-integrated", "2 outputs: merchant integrated address + payer change (real pid_enc)",
            {to(integrated, merchant, {0, 0}, 5000000000, "merchant integrated", pid)}, payer, 123456, wallets));
        txs.push_back(transfer("five-out-mixed", "5 outputs, one D_e each: merchant main, merchant integrated, merchant (1,2), another wallet, payer change",
            {to(merchant.main(), merchant, {0, 0}, 100, "merchant main"),
             to(integrated, merchant, {0, 0}, 200, "merchant integrated", pid),
             to(sub12, merchant, {1, 2}, 300, "merchant (1,2)"),
             to(other.main(), other, {0, 0}, 400, "other main")},
            payer, 500, wallets));
        txs.push_back(transfer("two-out-not-ours", "2 outputs: another wallet's payment + payer change: nothing for the merchant",
            {to(other.main(), other, {0, 0}, 77777, "other main")}, payer, 88888, wallets));
        txs.push_back(coinbase("coinbase", "coinbase with 2 outputs: merchant main address + another wallet", 3000123,
            {to(merchant.main(), merchant, {0, 0}, 600000000000, "merchant main"),
             to(other.main(), other, {0, 0}, 12345, "other main")},
            wallets));

        std::ostringstream o;
        o << "{\"generator\":\"test/chains/monero/carrot/reference/gen-vectors.cpp\""
          << ",\"carrot_core\":\"monero-project/monero c7b6ee459f09ec00b444b565c122560bfc0bfda8\""
          << ",\"wallets\":{\"merchant\":" << walletJson(merchant, std::make_pair(pid, integrated))
          << ",\"payer\":" << walletJson(payer, std::nullopt)
          << ",\"other\":" << walletJson(other, std::nullopt) << "}"
          << ",\"transactions\":[";
        for (std::size_t i = 0; i < txs.size(); ++i)
            o << (i ? ",\n" : "\n") << txs[i];
        o << "\n]}\n";
        std::cout << o.str();
        return 0;
    }
    catch (const std::exception &e)
    {
        std::cerr << "gen-vectors: " << e.what() << "\n";
        return 1;
    }
}
